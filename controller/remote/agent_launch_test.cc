#include "controller/remote/agent_launch.h"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>

#include "common/shell_quote.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

// `sh -n`: the script parses as POSIX shell.
bool ParsesAsShell(const std::string& script) {
  int status = std::system(("sh -n -c " + ShellQuote(script)).c_str());
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

AgentBinary Binary(const std::string& arch, const std::string& digest) {
  return AgentBinary{arch, "/build/clusterctl-agent", digest, 2'345'678};
}

}  // namespace

TEST_CASE("agent commands parse as shell and name the per-build path") {
  AgentBinary x86 = Binary("x86_64", std::string(64, 'a'));
  std::map<std::string, AgentBinary> all = {{"x86_64", x86}};
  for (SudoMode sudo : {SudoMode::kNone, SudoMode::kNoPassword, SudoMode::kPassword}) {
    CAPTURE(static_cast<int>(sudo));
    CHECK(ParsesAsShell(AgentUploadCommand(x86, sudo)));
    CHECK(ParsesAsShell(AgentInstallFromHomeCommand(x86, sudo)));
  }
  CHECK(x86.RemotePath() == "/var/lib/clusterctl/agent/aaaaaaaaaaaaaaaa/clusterctl-agent");
  CHECK(AgentUploadCommand(x86, SudoMode::kNone).find("-eq 2345678") != std::string::npos);
  CHECK(AgentUploadCommand(x86, SudoMode::kPassword).find("sudo") == std::string::npos);
  CHECK(AgentInstallFromHomeCommand(x86, SudoMode::kPassword).find("sudo -S -p '[clusterctl] sudo password:' -- install") != std::string::npos);
}

TEST_CASE("the start command runs the agent for the node's architecture, via sudo when asked") {
  auto binaries = AgentBinaries::Discover(testing::BuildDir());
  REQUIRE(binaries.ok());
  std::string plain = AgentStartCommand(*binaries, SudoMode::kNone);
  std::string sudo = AgentStartCommand(*binaries, SudoMode::kNoPassword);
  CHECK(ParsesAsShell(plain));
  CHECK(ParsesAsShell(sudo));
  CHECK(plain.find("exec \"$a\"") != std::string::npos);
  CHECK(sudo.find("exec sudo -n -- \"$a\"") != std::string::npos);
  CHECK(plain.find("'x86_64') a='/var/lib/clusterctl/agent/") != std::string::npos);
}

TEST_CASE("ElfArchitecture reads e_machine") {
  std::string header(64, '\0');
  header.replace(0, 4, "\x7f" "ELF");
  header[5] = 1;
  header[18] = 62;
  CHECK(ElfArchitecture(header) == "x86_64");
  header[18] = static_cast<char>(183);
  CHECK(ElfArchitecture(header) == "aarch64");
  CHECK(ElfArchitecture("#!/bin/sh\n" + std::string(20, ' ')) == "");
}

}  // namespace clusterctl
