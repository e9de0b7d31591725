// The node programs' builds per architecture: the agent's (Discover, the
// start command that picks one by `uname -m`) and clusterctl-health's
// (ShippedNodeProgramFor), in a directory of files with real ELF headers.
#include "controller/remote/agent_binaries.h"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/shell_quote.h"
#include "controller/remote/agent_launch.h"
#include "controller/remote/node_programs.h"
#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

// A little-endian ELF header for e_machine `machine` (62 x86-64, 183 AArch64).
std::string ElfHeader(unsigned machine) {
  std::string header(64, '\0');
  header.replace(0, 4, "\x7f" "ELF");
  header[4] = 2;  // 64-bit
  header[5] = 1;  // little-endian
  header[18] = static_cast<char>(machine & 0xff);
  header[19] = static_cast<char>(machine >> 8);
  return header;
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

// A directory as the build leaves it with the aarch64 sub-build
// (cmake/Aarch64NodePrograms.cmake): each program beside clusterctl.
struct BuildTree {
  testing::TempDir dir;
  BuildTree() {
    WriteFile(dir.path() + "/clusterctl-agent", ElfHeader(62) + "x86 agent");
    WriteFile(dir.path() + "/clusterctl-agent-aarch64", ElfHeader(183) + "arm agent");
    WriteFile(dir.path() + "/clusterctl-health", ElfHeader(62) + "x86 health");
    WriteFile(dir.path() + "/clusterctl-health-aarch64", ElfHeader(183) + "arm health");
    WriteFile(dir.path() + "/clusterctl-health-notes", "not a program");
  }
};

struct ShellRun {
  int exit_status = -1;
  std::string output;
};

// Runs the agent's start command as a node whose `uname -m` prints `arch`.
ShellRun RunStartAs(const std::string& start_command, const std::string& arch, const std::string& scratch) {
  const std::string bin = scratch + "/bin-" + arch;
  std::filesystem::create_directories(bin);
  WriteFile(bin + "/uname", "#!/bin/sh\necho " + arch + "\n");
  std::filesystem::permissions(bin + "/uname", std::filesystem::perms::owner_all);
  const std::string command = "PATH=" + ShellQuote(bin) + ":$PATH sh -c " + ShellQuote(start_command) + " 2>&1";
  ShellRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[512];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) run.output.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace

TEST_CASE("Discover finds one agent build per architecture by its ELF header, whatever its name") {
  BuildTree tree;
  auto binaries = AgentBinaries::Discover(tree.dir.path());
  REQUIRE(binaries.ok());
  CHECK(binaries->Archs() == std::vector<std::string>{"aarch64", "x86_64"});
  REQUIRE(binaries->ForArch("aarch64") != nullptr);
  CHECK(binaries->ForArch("aarch64")->path == tree.dir.path() + "/clusterctl-agent-aarch64");
  CHECK(binaries->ForArch("x86_64")->path == tree.dir.path() + "/clusterctl-agent");
  CHECK(binaries->ForArch("aarch64")->sha256 != binaries->ForArch("x86_64")->sha256);
  CHECK(binaries->ForArch("riscv64") == nullptr);
}

TEST_CASE("the start command picks the node's architecture's agent and refuses one it has no build for, naming it") {
  BuildTree tree;
  auto binaries = AgentBinaries::Discover(tree.dir.path());
  REQUIRE(binaries.ok());
  const std::string start = AgentStartCommand(*binaries, SudoMode::kNone);
  // Neither build is installed on this "node": each architecture asks for its own.
  ShellRun arm = RunStartAs(start, "aarch64", tree.dir.path());
  CHECK(arm.exit_status == kAgentMissingExit);
  CHECK(arm.output == "clusterctl-agent: missing aarch64\n");
  ShellRun x86 = RunStartAs(start, "x86_64", tree.dir.path());
  CHECK(x86.exit_status == kAgentMissingExit);
  CHECK(x86.output == "clusterctl-agent: missing x86_64\n");
  ShellRun riscv = RunStartAs(start, "riscv64", tree.dir.path());
  CHECK(riscv.exit_status == kAgentNoBuildExit);
  CHECK(riscv.output == "clusterctl-agent: no build for riscv64\n");
  // The paths differ per build (content-addressed), so an upload for one
  // architecture never stands in for the other's.
  CHECK(start.find(binaries->ForArch("aarch64")->RemotePath()) != std::string::npos);
  CHECK(start.find(binaries->ForArch("x86_64")->RemotePath()) != std::string::npos);
}

TEST_CASE("ShippedNodeProgramFor gives clusterctl-health built for the node's architecture") {
  BuildTree tree;
  const std::string dir = tree.dir.path();
  auto x86 = ShippedNodeProgramFor("clusterctl-health", "x86_64", dir);
  REQUIRE(x86.ok());
  CHECK(*x86 == dir + "/clusterctl-health");
  auto arm = ShippedNodeProgramFor("clusterctl-health", "aarch64", dir);
  REQUIRE(arm.ok());
  CHECK(*arm == dir + "/clusterctl-health-aarch64");
  // Facts not gathered: the build beside clusterctl.
  auto unknown = ShippedNodeProgramFor("clusterctl-health", "", dir);
  REQUIRE(unknown.ok());
  CHECK(*unknown == dir + "/clusterctl-health");
}

TEST_CASE("ShippedNodeProgramFor refuses an architecture without a build, naming it and the builds there are") {
  BuildTree tree;
  auto riscv = ShippedNodeProgramFor("clusterctl-health", "riscv64", tree.dir.path());
  REQUIRE_FALSE(riscv.ok());
  CHECK(riscv.status().code() == Status::Code::kUnsupported);
  CHECK(riscv.status().message() == "node-program:clusterctl-health: no build for riscv64 in " + tree.dir.path() +
                                        " (builds exist for: aarch64, x86_64)");
  std::filesystem::remove(tree.dir.path() + "/clusterctl-health-aarch64");
  auto arm = ShippedNodeProgramFor("clusterctl-health", "aarch64", tree.dir.path());
  REQUIRE_FALSE(arm.ok());
  CHECK(arm.status().message().find("no build for aarch64") != std::string::npos);
  CHECK(arm.status().message().find("(builds exist for: x86_64)") != std::string::npos);
}

}  // namespace clusterctl
