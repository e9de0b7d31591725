// nccl.cluster: all_reduce_perf across every usable GPU node with nccl-tests
// (srun --mpi=pmix from the submit host, one task per GPU, -g 1), judged on
// correctness, bus bandwidth at the largest size and small-message latency
// (EvaluateNccl, checks.h).
#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/gpu_jobs.h"
#include "controller/validate/infiniband.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "nccl.cluster";

// The usable GPU nodes with nccl-tests installed, in the selection's order.
std::vector<std::string> NcclNodes(const ClusterRun& run) {
  std::vector<std::string> nodes;
  for (const GpuJobNode& node : GpuJobNodes(run)) {
    if (node.why_not.empty() && HasNcclTests(run.View(node.host).node)) nodes.push_back(node.host);
  }
  return nodes;
}

Argv JobArgv(const std::vector<std::string>& nodes, const NodeView& first) {
  const std::string gpus = std::to_string(first.node.pci_gpus);
  Argv argv = {"srun", "-N", std::to_string(nodes.size()), "-w", Join(nodes, ","), "--ntasks-per-node=" + gpus,
               "--gres=gpu:" + gpus, "--mpi=pmix", "--immediate=60", "--time=15", "-J", "clusterctl-validate"};
  for (std::string& arg : AllReducePerf(first.vars, 1)) argv.push_back(std::move(arg));
  return argv;
}

// validate_nccl_busbw_min_gbps, else 75% of the first node's summed active InfiniBand line rate.
double BusbwFloor(const NodeView& first) {
  if (std::optional<double> floor = NumberVariable(first.vars, "validate_nccl_busbw_min_gbps")) return *floor;
  double ib_gbps = 0;
  for (const IbPortStatus& p : ExpectedIbPorts(SysfsIbPorts(first.node.facts), first.vars)) {
    if (p.state == "ACTIVE") ib_gbps += p.rate_gbps;
  }
  return DefaultClusterBusbwFloorGbps(ib_gbps);
}

void RunPhase(ClusterRun& run) {
  const std::string& cluster = run.cluster();
  const std::vector<std::string> nodes = NcclNodes(run);
  if (nodes.size() < 2) {
    return run.Add(Skip(kCheck, kCluster, cluster, nodes.empty() ? "nccl-tests not installed on any usable GPU node"
                                                                 : "nccl-tests on only one usable GPU node"));
  }
  const NodeView first = run.View(nodes.front());
  Result<ToolOutput> output =
      std::move(run.RunCommands({{.host = run.SubmitHost(), .argv = JobArgv(nodes, first), .timeout_s = 900}}).front());
  if (!output.ok()) return run.Add(Fail(kCheck, kCluster, cluster, output.status().message()));
  const double latency = NumberVariable(first.vars, "validate_nccl_small_message_max_us").value_or(100);
  run.Add(EvaluateNccl(kCheck, kCluster, cluster, *output, BusbwFloor(first), latency));
}

const CheckRegistration kNcclCluster({.name = kCheck,
                                      .scope = kCluster,
                                      .summary = "all_reduce_perf across nodes: correct, bandwidth and latency",
                                      .rank = 270,
                                      .prerequisites = {{"slurm.node"}, {"gpu.count"}},
                                      .probes = {&NcclTestsProbe()},
                                      .cluster_phase = {.run = RunPhase, .slurm_jobs = true},
                                      .needs_controller = true,
                                      .variables = R"(
validate_nccl_small_message_max_us:
  default: 100
  type: number
  minimum: 1
  description: cross-node all_reduce latency of the smallest messages, in microseconds
)"});

}  // namespace
}  // namespace clusterctl::checks
