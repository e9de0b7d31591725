// `clusterctl deploy` and `clusterctl plan` (= deploy --check --diff).
//
// 1. Load and check the inventory and the role catalog (roles, templates,
//    `when` syntax, dependency cycles): any problem exits 2, nothing touched.
// 2. Take the state's writer lock; gather facts of selected hosts that have
//    none yet (or all with --verify).
// 3. Plan every selected host (templates see every host's stored facts);
//    an undefined variable or a bad `when` exits 2 before any change.
// 4. Run: hosts concurrently (--forks), in batches (--batch), stopping new
//    hosts once --max-fail is spent; hosts whose recorded state is current
//    are not contacted. 5. Recap; exit 0, or 1 when a host failed.
#pragma once

#include <string>
#include <vector>

#include "controller/cli/remote_command.h"

namespace clusterctl {

struct DeployOptions {
  RemoteCommandOptions remote;
  std::vector<std::string> roles;  // --roles
  bool check = false;
  bool diff = false;
  bool verify = false;
  std::string batch;     // "N" or "P%"; empty: all at once
  int max_fail_percent = 100;
};

int RunDeploy(const DeployOptions& options, const GlobalOptions& global, const Services& services);

// "10" -> 10 hosts, "25%" of 8 -> 2 (at least 1), "" -> all. Nullopt when malformed.
std::optional<size_t> ParseBatchSize(const std::string& text, size_t hosts);

}  // namespace clusterctl
