// Reaching the files resources write as root without following a link an
// unprivileged user could have planted.
//
// Every directory on the way to a path is opened from "/" with O_NOFOLLOW,
// one component at a time. A symbolic link on the way is followed only when
// root owns it and the directory holding it is writable by root alone: the
// system's own links (/lib -> usr/lib on a merged-/usr system, /var/run ->
// /run) resolve, while a user's ~/.ssh swapped for a link to /root/.ssh is
// refused. The last component is never followed: it is opened, created,
// replaced (renamed over) or changed through the directory's descriptor,
// with O_NOFOLLOW. Holding the directory's descriptor closes the window
// between checking a path and writing it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/status.h"

namespace clusterctl::agent {

class ParentDirectory {
 public:
  // Opens the directory that holds `path` (absolute). InvalidArgument when
  // the path is relative or has a ".." component (only a trusted link's
  // target may walk up); FailedPrecondition naming the link when the way
  // there crosses one that is not trusted; NotFound when a directory on the
  // way is missing.
  static Result<ParentDirectory> Open(const std::string& path);

  ParentDirectory(ParentDirectory&& other) noexcept;
  ParentDirectory& operator=(ParentDirectory&& other) noexcept;
  ParentDirectory(const ParentDirectory&) = delete;
  ParentDirectory& operator=(const ParentDirectory&) = delete;
  ~ParentDirectory();

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }  // the last component of the path
  const std::string& path() const { return path_; }  // as given, for messages

  // Opens the path's own file with `flags` | O_NOFOLLOW | O_CLOEXEC (a
  // symbolic link there fails with ELOOP, reported as "is a symbolic link").
  Result<int> OpenFile(int flags, mode_t mode = 0) const;
  // Replaces the file with `content` (temporary file, fsync, rename, fsync of
  // the directory): readers and a crash see the old content or the new.
  Status WriteAtomic(const std::string& content, int mode, uid_t uid, gid_t gid) const;

 private:
  ParentDirectory(int fd, std::string name, std::string path) : fd_(fd), name_(std::move(name)), path_(std::move(path)) {}

  int fd_ = -1;
  std::string name_;
  std::string path_;
};

// Sets owner/group (-1: unchanged) and mode (-1: unchanged) of an existing
// path without following a link at its end or on the way.
Status ChangeAttributes(const std::string& path, uid_t uid, gid_t gid, int mode);

}  // namespace clusterctl::agent
