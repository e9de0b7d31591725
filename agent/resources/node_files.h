// File-system helpers for resources: reading, atomic replacement, owners and
// modes. Users and groups are looked up in /etc/passwd and /etc/group (the
// agent is static and never uses NSS).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/resources/resource.h"
#include "common/atomic_file.h"
#include "common/status.h"

namespace clusterctl::agent {

struct FileInfo {
  bool exists = false;
  bool is_regular = false;
  bool is_directory = false;
  bool is_symlink = false;
  int mode = 0;  // permission bits
  uid_t uid = 0;
  gid_t gid = 0;
};

FileInfo StatPath(const std::string& path);  // lstat: does not follow symlinks
// A system file the agent reads (/etc/passwd, /proc/...), links followed.
std::optional<std::string> ReadWholeFile(const std::string& path);

// A resource's own file, read, written, created and removed as safe_path.h
// says: never through a link an unprivileged user could have planted, and
// (for a read) never through a link at the file itself, whose target's
// content would otherwise end up in a plan's diff.
std::optional<std::string> ReadNodeFile(const std::string& path);  // nullopt: missing, unreadable or a link
Status WriteNodeFile(const std::string& path, const std::string& content, int mode, uid_t uid, gid_t gid);
Status RemoveNodeFile(const std::string& path);
Status MakeNodeDirectory(const std::string& path, int mode);

// A user or group name (or number) -> id, from /etc/passwd or /etc/group.
std::optional<uid_t> LookupUid(const std::string& name);
std::optional<gid_t> LookupGid(const std::string& name);
std::string UserName(uid_t uid);
std::string GroupName(gid_t gid);

// Compares and (when applying) fixes owner, group and mode of an existing
// path from the `owner`, `group`, `mode` params. Returns false on failure
// (recorded in `outcome`).
bool EnsureAttributes(const std::string& path, const nlohmann::json& params, bool apply, ResourceOutcome& outcome);

// The desired owner/group/mode for a path being created (defaults: root, root, `default_mode`).
struct Attributes {
  uid_t uid = 0;
  gid_t gid = 0;
  int mode = 0644;
};
std::optional<Attributes> DesiredAttributes(const nlohmann::json& params, int default_mode, bool apply,
                                            ResourceOutcome& outcome);

std::string ModeText(int mode);  // "0644"

// A small root-owned configuration file with exactly `content` (or absent
// when `content` is nullopt); records the difference and applies it.
void EnsureFileContent(const std::string& path, const std::optional<std::string>& content, int mode, bool apply,
                       ResourceOutcome& outcome);

// Unified diff of two texts (line based), labelled with `path`; "" when equal.
std::string UnifiedDiff(const std::string& before, const std::string& after, const std::string& path);

}  // namespace clusterctl::agent
