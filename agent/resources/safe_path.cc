#include "agent/resources/safe_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <random>

#include "common/strings.h"

namespace clusterctl::agent {
namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit

std::deque<std::string> Components(const std::string& path) {
  std::deque<std::string> parts;
  for (const std::string& part : Split(path, '/')) {
    if (!part.empty() && part != ".") parts.push_back(part);
  }
  return parts;
}

// ".." walks up from where a path seems to lead: /etc/prometheus/jobs/{{job}}
// with the job "../../../../root" is /root. Only the targets of root's own
// links may hold one (/etc/localtime -> ../usr/share/zoneinfo/...).
bool HasParentComponent(const std::string& path) {
  for (const std::string& part : Split(path, '/')) {
    if (part == "..") return true;
  }
  return false;
}

// Only root could have made or changed a link inside this directory.
bool WritableOnlyByRoot(int dir_fd) {
  struct stat st {};
  return ::fstat(dir_fd, &st) == 0 && st.st_uid == 0 && (st.st_mode & 022) == 0;
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

Result<ParentDirectory> ParentDirectory::Open(const std::string& path) {
  if (path.empty() || path[0] != '/') return Status::InvalidArgument("'" + path + "' is not an absolute path");
  if (HasParentComponent(path)) {
    return Status::InvalidArgument("'" + Printable(path, 200) +
                                   "' has a '..' component: a path must name its file without walking up");
  }
  std::deque<std::string> pending = Components(path);
  if (pending.empty()) return Status::InvalidArgument("'" + path + "' names no file");
  const std::string name = pending.back();
  pending.pop_back();
  int fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(Errno("opening /"));
  std::string walked;  // for messages
  int links = 0;
  while (!pending.empty()) {
    const std::string part = pending.front();
    pending.pop_front();
    walked += "/" + part;
    int next = ::openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next >= 0) {
      ::close(fd);
      fd = next;
      continue;
    }
    const int error = errno;
    struct stat st {};
    if (error == ENOENT) {
      ::close(fd);
      return Status::NotFound(walked + " does not exist");
    }
    if (::fstatat(fd, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(st.st_mode)) {
      ::close(fd);
      return Status::FailedPrecondition(walked + " is not a directory (" + std::strerror(error) + ")");
    }
    if (st.st_uid != 0 || !WritableOnlyByRoot(fd)) {
      ::close(fd);
      return Status::FailedPrecondition(walked + " is a symbolic link " +
                                        (st.st_uid != 0 ? "owned by uid " + std::to_string(st.st_uid)
                                                        : std::string("in a directory others can write")) +
                                        "; refusing to write " + path + " through it");
    }
    char target[4096];
    const ssize_t length = ::readlinkat(fd, part.c_str(), target, sizeof target - 1);
    if (length < 0 || ++links > kMaxLinks) {
      ::close(fd);
      return Status::FailedPrecondition(walked + ": cannot resolve the symbolic link");
    }
    target[length] = '\0';
    std::deque<std::string> resolved = Components(target);
    pending.insert(pending.begin(), resolved.begin(), resolved.end());
    if (target[0] == '/') {
      ::close(fd);
      fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return Status::IoError(Errno("opening /"));
    }
  }
  return ParentDirectory(fd, name, path);
}

ParentDirectory::ParentDirectory(ParentDirectory&& other) noexcept
    : fd_(other.fd_), name_(std::move(other.name_)), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

ParentDirectory& ParentDirectory::operator=(ParentDirectory&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    name_ = std::move(other.name_);
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

ParentDirectory::~ParentDirectory() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int> ParentDirectory::OpenFile(int flags, mode_t mode) const {
  int fd = ::openat(fd_, name_.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd >= 0) return fd;
  if (errno == ELOOP) return Status::FailedPrecondition(path_ + " is a symbolic link; refusing to follow it");
  if (errno == ENOENT) return Status::NotFound(path_ + " does not exist");
  return Status::IoError(Errno("opening " + path_));
}

Status ParentDirectory::WriteAtomic(const std::string& content, int mode, uid_t uid, gid_t gid) const {
  std::mt19937_64 random(std::random_device{}());
  const std::string temp = ".clusterctl-" + std::to_string(random()) + ".tmp";
  int fd = ::openat(fd_, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(Errno("creating a temporary file beside " + path_));
  size_t offset = 0;
  bool ok = true;
  while (ok && offset < content.size()) {
    ssize_t n = ::write(fd, content.data() + offset, content.size() - offset);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) offset += static_cast<size_t>(n);
  }
  ok = ok && ::fchown(fd, uid, gid) == 0 && ::fchmod(fd, static_cast<mode_t>(mode)) == 0 && ::fsync(fd) == 0;
  int error = errno;
  ::close(fd);
  if (!ok || ::renameat(fd_, temp.c_str(), fd_, name_.c_str()) != 0) {
    if (ok) error = errno;
    ::unlinkat(fd_, temp.c_str(), 0);
    return Status::IoError("replacing " + path_ + ": " + std::strerror(error));
  }
  ::fsync(fd_);  // the rename survives a crash only once the directory is synced
  return Status::Ok();
}

Status ChangeAttributes(const std::string& path, uid_t uid, gid_t gid, int mode) {
  auto parent = ParentDirectory::Open(path);
  if (!parent.ok()) return parent.status();
  struct stat st {};
  if (::fstatat(parent->fd(), parent->name().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return Status::IoError(Errno("stat " + path));
  }
  if (S_ISLNK(st.st_mode)) {  // a link's own owner; links have no mode of their own
    if (::fchownat(parent->fd(), parent->name().c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) {
      return Status::IoError(Errno("chown " + path));
    }
    return Status::Ok();
  }
  // Through a descriptor of the very file checked: a swap for a link after
  // the check fails the open (O_NOFOLLOW) instead of changing the link's target.
  auto fd = parent->OpenFile(O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd.ok()) return fd.status();
  bool ok = (uid == static_cast<uid_t>(-1) && gid == static_cast<gid_t>(-1)) || ::fchown(*fd, uid, gid) == 0;
  const char* what = ok ? "chmod " : "chown ";
  ok = ok && (mode < 0 || ::fchmod(*fd, static_cast<mode_t>(mode)) == 0);
  const int error = errno;
  ::close(*fd);
  return ok ? Status::Ok() : Status::IoError(what + path + ": " + std::strerror(error));
}

}  // namespace clusterctl::agent
