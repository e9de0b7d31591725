// users.consistent's reading of `getent passwd NAME...` (users_consistent.cc).
#pragma once

#include <map>
#include <set>
#include <string>

#include "common/status.h"

namespace clusterctl::checks {

struct PasswdEntry {
  long long uid = -1, gid = -1;
  std::string home;
};

// getent's entries by user name. Every non-empty line must be a passwd
// entry (seven fields, numeric UID and GID) for one of `asked`, each once;
// anything else (or more than 1 MiB) is an error naming the line.
Result<std::map<std::string, PasswdEntry>> ParseGetentPasswd(const std::string& text, const std::set<std::string>& asked);

}  // namespace clusterctl::checks
