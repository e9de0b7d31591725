// Refusing state directories on network file systems.
//
// SQLite's WAL mode needs shared memory between processes on one machine and
// POSIX locks that network file systems do not provide faithfully; the state
// writer lock (flock) has the same problem. A state directory on NFS, Lustre,
// GPFS, BeeGFS, CIFS, CephFS or a network FUSE file system is refused.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace clusterctl {

struct FilesystemInfo {
  unsigned long magic = 0;   // statfs f_type
  std::string fuse_subtype;  // "sshfs" for fuse.sshfs mounts, else empty
  std::string mount_point;
};

// Names the network file system kind, or returns "" for a local one.
std::string NetworkFilesystemName(unsigned long magic, std::string_view fuse_subtype);

class FilesystemProbe {
 public:
  virtual ~FilesystemProbe() = default;
  virtual Result<FilesystemInfo> Probe(const std::string& path) const = 0;
};

// statfs(2) plus /proc/self/mountinfo for FUSE subtypes.
class SystemFilesystemProbe final : public FilesystemProbe {
 public:
  Result<FilesystemInfo> Probe(const std::string& path) const override;
};

// Ok for a local file system; FailedPrecondition explaining why otherwise.
Status CheckStateFilesystem(const std::string& path, const FilesystemProbe& probe);

}  // namespace clusterctl
