// validate --drain-failed (acceptance level, docs/validation.md): after the
// checks, each selected compute node an acceptance check judged is drained
// when one failed on it ("clusterctl-accept: net.iperf3 to node03 31.2 Gb/s
// < median 97.1 Gb/s - 20% ..."), and resumed when every one passed and
// acceptance had drained it; a node drained for another reason (an admin,
// slurmctld, the health check) is left alone. The decision is the health
// check's (slurm_drain.h), with acceptance's own reason prefix, so neither
// resumes the other's drains. Run on the Slurm controller through the
// ClusterRun (scontrol show node, then scontrol update).
#pragma once

#include <string>
#include <vector>

#include "controller/validate/check_result.h"
#include "controller/validate/cluster_run.h"

namespace clusterctl {

// One line per node judged: "node03: failed: draining (clusterctl-accept: ...)",
// or why nothing could be done ("no Slurm controller in the inventory").
// `controller`: the Slurm controller's host name ("" when none); `results`: the run's report.
std::vector<std::string> DrainFailedNodes(ClusterRun& run, const std::string& controller,
                                          const std::vector<CheckResult>& results);

}  // namespace clusterctl
