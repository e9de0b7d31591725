// ValidationRun: runs the checks of `clusterctl validate` on a cluster and
// returns one CheckResult per check and subject (docs/validation.md).
//
// Phases, each a fan-out over the hosts that take part (every phase's hosts
// run concurrently; a host runs its own commands one after another):
//   1. probe   every selected host: its facts, then each probe of the
//              checks the selection needs whose requirements hold there,
//              once (check_spec.h); plus the Slurm controller and submit
//              host when Slurm checks run, with only the probes of the
//              checks that read the controller's view (munge -n, the
//              slurm.conf digest);
//   2. cross   the controller decodes every node's munge credential and asks
//              slurmctld (scontrol ping / show node); every node decodes the
//              controller's credential;
//      then each selected node's node checks are judged (node_verdicts.cc:
//      the specs' requirements, prerequisites and verdicts);
//   3. jobs    on the submit host: srun across the usable compute nodes, a
//              job with all GPUs per GPU node, nccl-tests when installed;
//   4. checks' the checks' own cluster phases (check_spec.h,
//      phases  cluster_phases.cc), in report order: ib.write_bw between ring
//              neighbours in rounds in which no node is in two pairs, the
//              IPoIB pings of fabric.ipoib, the NFS round trips of nfs.*,
//              Prometheus's targets for monitoring.targets, mpi.cluster's job.
// A check whose prerequisite failed is skipped naming that check; work left
// when the run's deadline passes fails with "deadline".
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controller/power/local_process.h"
#include "controller/remote/remote_runner.h"
#include "controller/validate/check_result.h"
#include "controller/validate/check_selection.h"
#include "inventory/model.h"

namespace clusterctl {

struct ValidationInputs {
  const Inventory* inventory = nullptr;
  std::vector<const Host*> selected;               // --limit
  CheckSelection checks;
  std::chrono::seconds deadline{900};
  const Clock* clock = nullptr;  // the run's time (its deadline, requests' deadlines); null: the system clock
  // Runs `body` on `hosts` concurrently (RemoteCommand::RunOn).
  std::function<std::vector<HostResult>(const std::vector<const Host*>&, const RemoteRunner::HostBody&)> run_on;
  // validate --drain-failed: drain the compute nodes an acceptance check
  // failed on, resume the ones acceptance drained that pass (acceptance_drain.h).
  bool drain_failed = false;
  // Runs ipmitool on the controller for the out-of-band checks (bmc.*:
  // ClusterRun::ThroughBmcs); null: they fail, "no way to the BMCs".
  ProcessRunner* processes = nullptr;
  // Told a line of progress while the cluster phases run (ClusterRun::Progress); may be empty.
  std::function<void(const std::string&)> progress;
};

struct ValidationOutcome {
  std::vector<CheckResult> results;
  std::vector<HostResult> probe_results;  // phase 1, for the run record (unreachable hosts)
  std::vector<std::pair<std::string, nlohmann::json>> facts;  // gathered in phase 1, stored as the hosts' facts
  std::vector<std::string> slurm_actions;  // --drain-failed: per node what was drained or resumed, and why
};

ValidationOutcome RunValidation(const ValidationInputs& inputs);

}  // namespace clusterctl
