// The job phase's mpi.cluster (see validator.h): the mpi role's test program
// on the first two usable compute nodes, one task each, started by
// srun --mpi=pmix from the submit host; srun --bcast copies the program from
// the submit host to the nodes first (no shared file system needed).
#include "controller/validate/checks/common.h"
#include "controller/validate/mpi_ring.h"
#include "controller/validate/validator.h"
#include "common/strings.h"

namespace clusterctl::validation_internal {
namespace {

constexpr const char* kCheck = "mpi.cluster";

}  // namespace

Validator::MpiJob Validator::PlanMpiJob(const std::vector<std::string>& usable) {
  MpiJob job;
  if (!Want(kCheck)) return job;
  const std::string cluster = in_.inventory->cluster_name;
  if (usable.empty()) {
    Add(Fail(kCheck, kCluster, cluster, kNoUsableComputeNode));
    return job;
  }
  if (usable.size() < 2) {
    Add(Skip(kCheck, kCluster, cluster, "only " + usable.front() + " can run jobs: MPI across nodes needs two"));
    return job;
  }
  const ToolOutput& built = probes_.at(submit_host_->name).readings.Output(checks::MpiTestProgramProbe().id);
  if (!built.Succeeded()) {
    Add(Skip(kCheck, kCluster, cluster, std::string("the MPI test program is not built on the submit host ") +
                                            submit_host_->name + " (" + kMpiTestProgram + ": the mpi role builds it)"));
    return job;
  }
  job.nodes = {usable[0], usable[1]};
  return job;
}

std::vector<std::string> Validator::MpiJobArgv(const MpiJob& job) const {
  return {"srun", "-N", "2", "-w", Join(job.nodes, ","), "--ntasks-per-node=1", "--mpi=pmix",
          "--bcast=/tmp/clusterctl-mpi-ring", "--immediate=60", "--time=5", "-J", "clusterctl-validate",
          kMpiTestProgram};
}

// Over InfiniBand when both nodes have an active port: the slower node's
// fastest port sets the defaults (thresholds.h).
void Validator::JudgeMpiJob(const MpiJob& job) {
  if (job.nodes.empty()) return;
  const std::string cluster = in_.inventory->cluster_name;
  if (!job.ran) {
    DeadlinePassed(kCheck, kCluster, cluster);
    return;
  }
  double ib_gbps = 0;
  for (size_t i = 0; i < job.nodes.size(); ++i) {
    double fastest = 0;
    for (const IbPortStatus& p : ExpectedIbPorts(SysfsIbPorts(probes_.at(job.nodes[i]).readings.facts), ThresholdsOf(job.nodes[i]))) {
      if (p.state == "ACTIVE") fastest = std::max(fastest, p.rate_gbps);
    }
    ib_gbps = i == 0 ? fastest : std::min(ib_gbps, fastest);
  }
  const Thresholds& t = ThresholdsOf(job.nodes.front());
  MpiLimits limits{t.mpi_latency_max_us.value_or(DefaultMpiLatencyMaxUs(ib_gbps)),
                   t.mpi_bandwidth_min_mbps ? t.mpi_bandwidth_min_mbps : DefaultMpiBandwidthFloorMbps(ib_gbps), ""};
  limits.bandwidth_floor_source = t.mpi_bandwidth_min_mbps ? "validate_mpi_bandwidth_min_mbps"
                                  : ib_gbps > 0            ? "80% of the InfiniBand line rate"
                                                           : "no InfiniBand port on both nodes and no validate_mpi_bandwidth_min_mbps";
  Add(EvaluateMpiRing(cluster, job.nodes, job.output, limits));
}

}  // namespace clusterctl::validation_internal
