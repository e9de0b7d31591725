// The cluster as the daemon shows it (GET /api/v1/status, the page, the
// metrics): the inventory joined with the state's records, the drift book,
// the jobs and the Slurm watch's last reading. Pure: everything comes in as
// arguments.
//
// A host's `health` is the one word the page colours and the metrics count:
// converged (its last run was ok and no drift check since found a change),
// drifted, failed, unreachable, never deployed, gone from inventory, removed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/daemon/drift.h"
#include "controller/daemon/jobs.h"
#include "controller/daemon/site.h"
#include "controller/daemon/slurm_watch.h"
#include "controller/daemon/state_view.h"
#include "controller/state/host_status.h"

namespace clusterctl {

inline constexpr int kApiVersion = 1;

struct DaemonFacts {  // what the daemon knows about itself
  std::string inventory_path;
  std::string inventory_error;  // the file as it is now has problems; the last good one serves
  int64_t started_at_ms = 0;
  int64_t verify_interval_s = 0;
  int64_t next_drift_check_ms = 0;
  bool remediate = false;
};

struct HostView {
  HostStatusRow row;
  std::string health;
  std::optional<HostDrift> drift;  // the last drift check of this host, if any
  const std::vector<StoredValidation>* validation = nullptr;
  const nlohmann::json* facts = nullptr;
  std::optional<int64_t> last_run;
};

// Every host of the inventory (and those the state knows that left it).
std::vector<HostView> BuildHostViews(const Inventory& inventory, const StateSnapshot& state,
                                     const std::map<std::string, HostDrift>& drift);

nlohmann::json HostToJson(const HostView& host);

nlohmann::json BuildStatusDocument(const Site& site, const StateSnapshot& state, const DriftBook& drift,
                                   const JobRunner& jobs, const DaemonFacts& daemon, const SlurmNodesReading& slurm);

}  // namespace clusterctl
