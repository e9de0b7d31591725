#include "agent/facts/slurm.h"

#include <algorithm>
#include <filesystem>
#include <vector>

namespace clusterctl::facts {
namespace {

// /usr/lib/<triplet> of each architecture the node has (x86_64-linux-gnu,
// aarch64-linux-gnu), in name order.
std::vector<std::string> MultiarchDirs(const std::string& root) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/usr/lib", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 10 && name.compare(name.size() - 10, 10, "-linux-gnu") == 0) dirs.push_back("/usr/lib/" + name);
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

}  // namespace

nlohmann::json ReadSlurmPlugins(const std::string& root) {
  std::vector<std::string> candidates;
  for (const std::string& dir : MultiarchDirs(root)) candidates.push_back(dir + "/slurm-wlm");
  for (const char* dir : {"/usr/lib64/slurm", "/usr/lib/slurm", "/usr/local/lib/slurm"}) candidates.emplace_back(dir);
  for (const std::string& dir : candidates) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root + dir, ec)) continue;
    return {{"plugin_dir", dir}, {"gpu_nvml", Exists(root + dir + "/gpu_nvml.so")}};
  }
  return {{"plugin_dir", nullptr}, {"gpu_nvml", false}};
}

nlohmann::json FindNvmlLibrary(const std::string& root) {
  std::vector<std::string> dirs;
  for (const std::string& dir : MultiarchDirs(root)) {
    dirs.push_back(dir);
    dirs.push_back(dir + "/nvidia/current");
  }
  dirs.insert(dirs.end(), {"/usr/lib64", "/usr/lib"});
  for (const std::string& dir : dirs) {
    const std::string path = dir + "/libnvidia-ml.so.1";
    if (Exists(root + path)) return path;
  }
  return nullptr;
}

}  // namespace clusterctl::facts
