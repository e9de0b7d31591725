#include "controller/remote/agent_binaries.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/sha256.h"
#include "common/strings.h"
#include "controller/remote/node_programs.h"

namespace clusterctl {

std::string ElfArchitecture(const std::string& header) {
  if (header.size() < 20 || header.compare(0, 4, "\x7f" "ELF") != 0) return "";
  const bool little_endian = header[5] == 1;
  auto byte = [&](size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(header[i])); };
  unsigned machine = little_endian ? (byte(18) | (byte(19) << 8)) : ((byte(18) << 8) | byte(19));
  switch (machine) {
    case 62: return "x86_64";
    case 183: return "aarch64";
    case 21: return little_endian ? "ppc64le" : "ppc64";
    default: return "";
  }
}

std::string NodeProgramsDirectory() {
  if (const char* env = std::getenv("CLUSTERCTL_AGENT_DIR")) return env;
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  const std::filesystem::path exe_dir = std::filesystem::path(self).parent_path();
  // Installed: the node programs in <prefix>/lib/clusterctl beside <prefix>/bin.
  // The build tree: beside clusterctl.
  std::error_code ec;
  const std::filesystem::path installed = exe_dir.parent_path() / "lib" / "clusterctl";
  return std::filesystem::is_directory(installed, ec) ? installed.string() : exe_dir.string();
}

// The build beside clusterctl: ShippedNodeProgramFor (node_programs.h) picks
// one by the node's architecture.
Result<std::string> ShippedNodeProgram(const std::string& name) { return ShippedNodeProgramFor(name, ""); }

Result<AgentBinaries> AgentBinaries::Discover(std::string directory) {
  if (directory.empty()) directory = NodeProgramsDirectory();
  if (directory.empty()) return Status::NotFound("cannot find the clusterctl executable's directory");
  AgentBinaries binaries;
  std::error_code ec;
  for (const auto& [arch, path] : BuildsByArch(directory, "clusterctl-agent")) {
    auto digest = Sha256File(path);
    if (!digest.ok()) return digest.status();
    binaries.by_arch_[arch] = AgentBinary{arch, path, *digest, static_cast<size_t>(std::filesystem::file_size(path, ec))};
  }
  if (binaries.by_arch_.empty()) {
    return Status::NotFound("no clusterctl-agent build found in " + directory + " (build it with scripts/build.sh)");
  }
  return binaries;
}

const AgentBinary* AgentBinaries::ForArch(const std::string& arch) const {
  auto it = by_arch_.find(arch);
  return it == by_arch_.end() ? nullptr : &it->second;
}

std::vector<std::string> AgentBinaries::Archs() const {
  std::vector<std::string> archs;
  for (const auto& [arch, binary] : by_arch_) archs.push_back(arch);
  return archs;
}

Result<std::string> AgentBinaries::Load(const AgentBinary& binary) {
  std::ifstream in(binary.path, std::ios::binary);
  if (!in) return Status::IoError("cannot read " + binary.path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return content;
}

}  // namespace clusterctl
