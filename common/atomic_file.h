// Replacing a file so that readers (and a crash) see the old content or the
// new, never a mix. Used by the agent for node files and by the controller
// for its secrets.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/status.h"

namespace clusterctl {

// Writes to a temporary file in the same directory (created 0600), sets
// owner and mode, fsyncs, renames it over `path` and fsyncs the directory.
Status WriteFileAtomic(const std::string& path, const std::string& content, int mode, uid_t uid, gid_t gid);

}  // namespace clusterctl
