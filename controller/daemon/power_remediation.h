// Power remediation (issue 54; `serve --power-remediate`, off by default):
// the daemon power-cycles a node through its BMC when the node is down in
// Slurm, does not answer over SSH, and its BMC reads on: a node hung where
// only its power ends it. Under a policy: at most `max_per_hour` power
// cycles in any hour; never two nodes of one inventory group at once (a
// node cycled holds its groups until Slurm has it back or `settle` has
// passed); a node not again within `settle`. While it does, the node's
// alerts are silenced in Alertmanager (engine/maintenance_silences.h).
//
// This file is the decision, pure: what the daemon knows of the nodes down
// in Slurm in, one decision per node out. power_remediator.h carries it out.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controller/power/ipmitool.h"
#include "inventory/model.h"

namespace clusterctl {

struct PowerRemediationPolicy {
  bool enabled = false;
  int max_per_hour = 1;
  std::chrono::seconds settle{900};
};

// A node down in Slurm, as the daemon found it.
struct DownNode {
  const Host* host = nullptr;
  bool answers_ssh = false;       // a session to its agent opened
  std::optional<PowerState> bmc;  // what its BMC read; nullopt: no bmc, or no reading
  std::string bmc_error;          // why there is no reading (a host with a bmc)
};

// A power cycle the daemon did (kept for the hour the budget looks back).
struct PastPowerCycle {
  std::string host;
  int64_t at_ms = 0;
};

struct PowerDecision {
  const Host* host = nullptr;
  bool cycle = false;
  std::string why;  // why it is cycled, or why not
};

// One decision per node of `down`, in its order (nothing when the policy
// is off). `down_in_slurm`: every node down in Slurm now, by name (a node
// cycled within `settle` holds its groups while it is still down).
std::vector<PowerDecision> DecidePowerCycles(const PowerRemediationPolicy& policy, const std::vector<DownNode>& down,
                                             const std::vector<PastPowerCycle>& past,
                                             const std::set<std::string>& down_in_slurm,
                                             const Inventory& inventory, int64_t now_ms);

// The cycles within the last hour of `now_ms`, oldest gone.
std::vector<PastPowerCycle> WithinTheHour(std::vector<PastPowerCycle> past, int64_t now_ms);

}  // namespace clusterctl
