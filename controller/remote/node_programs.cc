#include "controller/remote/node_programs.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "controller/remote/agent_binaries.h"

namespace clusterctl {

std::map<std::string, std::string> BuildsByArch(const std::string& directory, const std::string& name) {
  std::map<std::string, std::string> builds;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string file = entry.path().filename().string();
    if (file != name && file.rfind(name + "-", 0) != 0) continue;
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string header(64, '\0');
    in.read(header.data(), 64);
    header.resize(static_cast<size_t>(in.gcount()));
    const std::string arch = ElfArchitecture(header);
    if (!arch.empty()) builds[arch] = entry.path().string();
  }
  return builds;
}

Result<std::string> ShippedNodeProgramFor(const std::string& name, const std::string& arch, std::string directory) {
  if (name != "clusterctl-health") {
    return Status::InvalidArgument("node-program:" + Printable(name) + " is no program clusterctl ships (clusterctl-health)");
  }
  if (directory.empty()) directory = NodeProgramsDirectory();
  const std::string path = directory + "/" + name;
  if (directory.empty() || ::access(path.c_str(), R_OK) != 0) {
    return Status::NotFound("node-program:" + name + ": no " + path + " (build it with scripts/build.sh " + name + ")");
  }
  if (arch.empty()) return path;
  const auto builds = BuildsByArch(directory, name);
  if (auto it = builds.find(arch); it != builds.end()) return it->second;
  std::string archs;
  for (const auto& [built_for, unused] : builds) archs += (archs.empty() ? "" : ", ") + built_for;
  return Status::Unsupported("node-program:" + name + ": no build for " + Printable(arch) + " in " + directory +
                             " (builds exist for: " + archs + ")");
}

}  // namespace clusterctl
