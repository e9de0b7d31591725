#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace clusterctl {

Status WriteFileAtomic(const std::string& path, const std::string& content, int mode, uid_t uid, gid_t gid) {
  const std::string dir = path.substr(0, path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
  std::mt19937_64 random(std::random_device{}());
  const std::string temp = (dir.empty() ? "." : dir) + "/.clusterctl-" + std::to_string(random()) + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError("cannot create " + temp + ": " + std::strerror(errno));
  size_t offset = 0;
  while (offset < content.size()) {
    ssize_t n = ::write(fd, content.data() + offset, content.size() - offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return Status::IoError("writing " + path + ": " + std::strerror(error));
    }
    offset += static_cast<size_t>(n);
  }
  // fchown only when the owner must change: a daemon without privilege (its
  // unit forbids the chown calls outright) writes files it already owns.
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && ((st.st_uid == uid && st.st_gid == gid) || ::fchown(fd, uid, gid) == 0) &&
            ::fchmod(fd, static_cast<mode_t>(mode)) == 0 && ::fsync(fd) == 0;
  int error = errno;
  ::close(fd);
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    if (ok) error = errno;
    ::unlink(temp.c_str());
    return Status::IoError("replacing " + path + ": " + std::strerror(error));
  }
  // The rename itself survives a crash only once the directory is synced.
  int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::Ok();
}

}  // namespace clusterctl
