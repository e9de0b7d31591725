// One run of the Slurm health check on a node (clusterctl-health; Slurm's
// HealthCheckProgram runs it every HealthCheckInterval): judge the
// configured checks, read slurmctld's view of the node, drain or resume it
// (slurm_drain.h), write the textfile, print one line per check.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "health/node_health.h"

namespace clusterctl::health {

struct HealthRunOptions {
  bool dry_run = false;  // judge and say what it would do; change nothing
};

// Exit status: 0 the run completed (whatever the checks found), 1 the
// configuration is unusable (nothing judged, nothing changed), 2 Slurm's
// view of the node could not be read or changed (nothing changed: a health
// check that cannot see slurmctld must not guess).
int RunHealthCheck(const HealthRunOptions& options, const std::string& config_text, nlohmann::json facts,
                   NodeCommands& commands, std::ostream& out);

}  // namespace clusterctl::health
