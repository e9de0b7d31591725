#include "agent/facts/kernels.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

namespace clusterctl::facts {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  return names;
}

bool HasModuleFile(const fs::path& dir) {
  for (const std::string& name : Entries(dir)) {
    if (name.find(".ko") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool KernelReleaseLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

nlohmann::json ReadKernels(const std::string& root) {
  std::vector<std::string> installed, headers;
  for (const std::string& name : Entries(root + "/boot")) {
    if (name.rfind("vmlinuz-", 0) == 0 && name.size() > 8) installed.push_back(name.substr(8));
  }
  std::error_code ec;
  for (const std::string& release : Entries(root + "/lib/modules")) {
    if (fs::exists(fs::path(root + "/lib/modules") / release / "build" / "Makefile", ec)) headers.push_back(release);
  }
  std::sort(installed.begin(), installed.end(), KernelReleaseLess);
  std::sort(headers.begin(), headers.end(), KernelReleaseLess);
  nlohmann::json dkms = nlohmann::json::array();
  const fs::path tree = root + "/var/lib/dkms";
  for (const std::string& module : Entries(tree)) {
    for (const std::string& version : Entries(tree / module)) {
      // /var/lib/dkms/M/V holds "source", "build" and one directory per kernel release.
      // Next to the versions, DKMS keeps "kernel-R-ARCH" links and "original_module".
      if (!fs::is_directory(tree / module / version, ec) || version.rfind("kernel-", 0) == 0 ||
          version == "original_module" || fs::is_symlink(tree / module / version, ec)) {
        continue;
      }
      for (const std::string& kernel : Entries(tree / module / version)) {
        if (kernel == "source" || kernel == "build" || !fs::is_directory(tree / module / version / kernel, ec)) continue;
        for (const std::string& arch : Entries(tree / module / version / kernel)) {
          bool built = HasModuleFile(tree / module / version / kernel / arch / "module");
          dkms.push_back({{"module", module}, {"version", version}, {"kernel", kernel}, {"arch", arch}, {"built", built}});
        }
      }
    }
  }
  std::sort(dkms.begin(), dkms.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return std::tie(a["module"].get_ref<const std::string&>(), a["version"].get_ref<const std::string&>(),
                    a["kernel"].get_ref<const std::string&>()) <
           std::tie(b["module"].get_ref<const std::string&>(), b["version"].get_ref<const std::string&>(),
                    b["kernel"].get_ref<const std::string&>());
  });
  nlohmann::json newest = installed.empty() ? nlohmann::json(nullptr) : nlohmann::json(installed.back());
  return {{"installed", installed}, {"headers", headers}, {"newest", newest}, {"dkms", dkms}};
}

namespace {

// A filesystem name in /proc/filesystems ("nodev\tnfs4" or "\text4").
bool FilesystemRegistered(const std::string& proc_filesystems, const std::string& name) {
  std::istringstream lines(proc_filesystems);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t tab = line.rfind('\t');
    if ((tab == std::string::npos ? line : line.substr(tab + 1)) == name) return true;
  }
  return false;
}

// A module path in modules.dep ("kernel/fs/nfsd/nfsd.ko.xz: ...").
bool ModuleListed(const std::string& modules_dep, const std::string& path) {
  std::istringstream lines(modules_dep);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string file = line.substr(0, line.find(':'));
    const size_t at = file.find(path);
    if (at == std::string::npos) continue;
    const size_t end = at + path.size();
    if (end == file.size() || file[end] == '.') return true;  // nfsd.ko, nfsd.ko.xz, not nfsd.ko_x
  }
  return false;
}

}  // namespace

nlohmann::json NfsKernelSupportOf(const std::string& proc_filesystems, const std::string& modules_dep,
                                  bool cachefiles_device) {
  return {{"kernel_client", FilesystemRegistered(proc_filesystems, "nfs4") || ModuleListed(modules_dep, "/fs/nfs/nfsv4.ko")},
          {"kernel_server", FilesystemRegistered(proc_filesystems, "nfsd") || ModuleListed(modules_dep, "/fs/nfsd/nfsd.ko")},
          {"kernel_cachefiles", cachefiles_device || ModuleListed(modules_dep, "/fs/cachefiles/cachefiles.ko")}};
}

}  // namespace clusterctl::facts
