#include "controller/state/filesystem_check.h"

#include <sys/vfs.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace clusterctl {

std::string NetworkFilesystemName(unsigned long magic, std::string_view fuse_subtype) {
  static const std::map<unsigned long, const char*> kNetwork = {
      {0x6969, "NFS"},           {0x517B, "SMB"},          {0xFF534D42, "CIFS"},
      {0xFE534D42, "SMB2"},      {0x0BD00BD0, "Lustre"},   {0x47504653, "GPFS (Spectrum Scale)"},
      {0x00C36400, "CephFS"},    {0x19830326, "BeeGFS"},   {0x01021997, "9P"},
      {0x5346414F, "AFS"},       {0x6B414653, "AFS"},      {0x73757245, "Coda"},
      {0x7461636F, "OCFS2"},     {0x01161970, "GFS2"},     {0xAAD7AAEA, "PanFS"},
      {0x20030528, "OrangeFS"},  {0x564C, "NCP"},
  };
  if (auto it = kNetwork.find(magic); it != kNetwork.end()) return it->second;
  constexpr unsigned long kFuseMagic = 0x65735546;
  if (magic == kFuseMagic) {
    static const char* kNetworkFuse[] = {"sshfs",  "glusterfs", "s3fs",   "gcsfuse", "rclone", "beegfs",
                                         "weka",   "juicefs",   "mfs",    "lizardfs", "ceph-fuse", "davfs",
                                         "lustre", "cvmfs",     "objectivefs"};
    for (const char* name : kNetworkFuse) {
      if (fuse_subtype == name) return "FUSE " + std::string(name);
    }
  }
  return "";
}

Result<FilesystemInfo> SystemFilesystemProbe::Probe(const std::string& path) const {
  struct statfs st;
  if (::statfs(path.c_str(), &st) != 0) {
    return Status::IoError("cannot statfs " + path + ": " + std::strerror(errno));
  }
  FilesystemInfo info;
  info.magic = static_cast<unsigned long>(st.f_type);

  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) return info;
  // mountinfo: id parent major:minor root mount_point options ... - fstype source super_options
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line, best_type;
  size_t best_length = 0;
  const std::string target = resolved;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mount_point;
    fields >> id >> parent >> device >> root >> mount_point;
    size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype;
    tail >> fstype;
    bool covers = target == mount_point ||
                  (target.rfind(mount_point, 0) == 0 && (mount_point == "/" || target[mount_point.size()] == '/'));
    if (covers && mount_point.size() >= best_length) {
      best_length = mount_point.size();
      best_type = fstype;
      info.mount_point = mount_point;
    }
  }
  if (best_type.rfind("fuse.", 0) == 0) info.fuse_subtype = best_type.substr(5);
  return info;
}

Status CheckStateFilesystem(const std::string& path, const FilesystemProbe& probe) {
  Result<FilesystemInfo> info = probe.Probe(path);
  if (!info.ok()) return info.status();
  std::string network = NetworkFilesystemName(info->magic, info->fuse_subtype);
  if (network.empty()) return Status::Ok();
  return Status::FailedPrecondition(
      "the state directory " + path + " is on a network file system (" + network +
      "); SQLite's WAL mode and the state lock need a local file system. Put the state on a local disk "
      "with --state DIR (for example --state /var/lib/clusterctl/<cluster>)");
}

}  // namespace clusterctl
