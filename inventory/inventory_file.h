// Files the inventory names for clusterctl to send to nodes: a repository's
// key (`*_repository_key_file`), a file's `source`, a bundle to copy
// (`rdma_ofed_bundle`, `nvidia_driver_bundle`). Each is a path relative to
// the inventory's directory, and must stay inside it once resolved (links
// followed): an absolute path, `..` or a link out of the directory would
// ship any file the controller's user can read to the nodes
// (`grafana_repository_key_file: /root/.ssh/id_ed25519`).
#pragma once

#include <string>

#include "common/status.h"

namespace clusterctl {

// The file `name` names, resolved from `base_dir` (the inventory's
// directory): links followed, `.` and `..` gone. InvalidArgument naming
// `name`, where it leads and why when that is outside `base_dir`. A file
// that does not exist yet resolves as far as its directories do (the
// caller that reads it reports it missing).
Result<std::string> ResolveInventoryFile(const std::string& base_dir, const std::string& name);

}  // namespace clusterctl
