// mpi.cluster: clusterctl's MPI test program (templates/clusterctl-mpi-ring.c,
// which the mpi role builds on the submit host) on the first two usable
// compute nodes, one task each, started by srun --mpi=pmix from the submit
// host; srun --bcast copies the program to the nodes first (no shared file
// system needed). The program's output and the verdict on it: mpi_ring.h.
#include <algorithm>
#include <optional>

#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/mpi_ring.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "mpi.cluster";

// Read on the submit host (and on the selected nodes, as every probe of a selected check).
const ProbeSpec kProgramBuilt{.id = "MPI test program built", .commands = {{"test", "-x", kMpiTestProgram}}, .timeout_s = 10};

// Open MPI's ping-pong over InfiniBand takes 1-3 us one way and reaches
// 90-97% of the line rate with 4 MiB messages; over TCP tens of us.
double DefaultLatencyMaxUs(double ib_gbps) { return ib_gbps > 0 ? 10 : 100; }

std::optional<double> DefaultBandwidthFloorMbps(double ib_gbps) {
  if (ib_gbps <= 0) return std::nullopt;
  return ib_gbps * 1000.0 / 8.0 * 0.8;
}

// The slower node's fastest active InfiniBand port in Gb/s; 0 when either has none (the job's traffic goes over TCP).
double SlowerIbRate(const ClusterRun& run, const std::vector<std::string>& nodes) {
  double ib_gbps = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView view = run.View(nodes[i]);
    double fastest = 0;
    for (const IbPortStatus& p : ExpectedIbPorts(SysfsIbPorts(view.node.facts), view.vars)) {
      if (p.state == "ACTIVE") fastest = std::max(fastest, p.rate_gbps);
    }
    ib_gbps = i == 0 ? fastest : std::min(ib_gbps, fastest);
  }
  return ib_gbps;
}

// The first node's variables, else the defaults over InfiniBand (both nodes
// have an active port: the slower node's fastest sets them) or TCP.
MpiLimits LimitsFor(const ClusterRun& run, const std::vector<std::string>& nodes) {
  const double ib_gbps = SlowerIbRate(run, nodes);
  const NodeView first = run.View(nodes.front());
  const std::optional<double> latency = NumberVariable(first.vars, "validate_mpi_latency_max_us");
  const std::optional<double> bandwidth = NumberVariable(first.vars, "validate_mpi_bandwidth_min_mbps");
  MpiLimits limits{latency.value_or(DefaultLatencyMaxUs(ib_gbps)), bandwidth ? bandwidth : DefaultBandwidthFloorMbps(ib_gbps), ""};
  limits.bandwidth_floor_source = bandwidth     ? "validate_mpi_bandwidth_min_mbps"
                                  : ib_gbps > 0 ? "80% of the InfiniBand line rate"
                                                : "no InfiniBand port on both nodes and no validate_mpi_bandwidth_min_mbps";
  return limits;
}

Argv JobArgv(const std::vector<std::string>& nodes) {
  return {"srun", "-N", "2", "-w", Join(nodes, ","), "--ntasks-per-node=1", "--mpi=pmix",
          "--bcast=/tmp/clusterctl-mpi-ring", "--immediate=60", "--time=5", "-J", "clusterctl-validate",
          kMpiTestProgram};
}

void RunPhase(ClusterRun& run) {
  const std::string& cluster = run.cluster();
  const std::vector<std::string> usable = run.UsableComputeNodes();
  if (usable.empty()) return run.Add(Fail(kCheck, kCluster, cluster, kNoUsableComputeNode));
  if (usable.size() < 2) {
    return run.Add(Skip(kCheck, kCluster, cluster, "only " + usable.front() + " can run jobs: MPI across nodes needs two"));
  }
  const std::string& submit = run.SubmitHost();
  if (!run.View(submit).node.Output(kProgramBuilt.id).Succeeded()) {
    return run.Add(Skip(kCheck, kCluster, cluster, "the MPI test program is not built on the submit host " + submit + " (" +
                                                       kMpiTestProgram + ": the mpi role builds it)"));
  }
  const std::vector<std::string> nodes = {usable[0], usable[1]};
  Result<ToolOutput> output = std::move(run.RunCommands({{.host = submit, .argv = JobArgv(nodes), .timeout_s = 180}}).front());
  if (!output.ok()) return run.Add(Fail(kCheck, kCluster, cluster, output.status().message()));
  run.Add(EvaluateMpiRing(cluster, nodes, *output, LimitsFor(run, nodes)));
}

const CheckRegistration kMpiCluster({.name = kCheck,
                                     .scope = kCluster,
                                     .summary = "an MPI ring and ping-pong across two nodes (srun --mpi=pmix): latency and bandwidth",
                                     .rank = 265,
                                     .prerequisites = {{"slurm.node"}},
                                     .probes = {&kProgramBuilt},
                                     .cluster_phase = {.run = RunPhase, .slurm_jobs = true},
                                     .needs_controller = true,
                                     .variables = R"(
validate_mpi_latency_max_us:
  default: null
  type: number
  minimum: 0
  description: mpi.cluster's one-way ping-pong latency ceiling in microseconds; null, 10 over InfiniBand, 100 over TCP
validate_mpi_bandwidth_min_mbps:
  default: null
  type: number
  minimum: 0
  description: mpi.cluster's ping-pong bandwidth floor in MB/s (4 MiB messages); null, 80% of the InfiniBand line rate (over TCP, not judged)
)"});

}  // namespace
}  // namespace clusterctl::checks
