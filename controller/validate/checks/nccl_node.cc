// nccl.node: on each compute node that can take a GPU job and has two GPUs
// or more and nccl-tests, all_reduce_perf over all its GPUs in one job
// (srun from the submit host), judged on correctness and the bus bandwidth
// floor at the largest size (EvaluateNccl, checks.h). Declares the NCCL
// variables nccl.cluster reads too.
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/gpu_jobs.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "nccl.node";

// Why the node runs no all_reduce within it ("": it runs one).
std::string NoAllReduce(const NodeView& view) {
  const std::string& h = view.host();
  if (view.node.pci_gpus < 2) {
    return "one GPU on " + h + ": there is no all_reduce within the node (nccl.cluster measures it across nodes)";
  }
  if (!HasNcclTests(view.node)) return "nccl-tests not installed on " + h + " (" + NcclTestsDir(view.vars) + "/all_reduce_perf)";
  return "";
}

// validate_nccl_busbw_min_gbps, else the floor of the node's GPU model (nvidia-smi's name of its first GPU).
double BusbwFloor(const NodeView& view) {
  if (std::optional<double> floor = NumberVariable(view.vars, "validate_nccl_busbw_min_gbps")) return *floor;
  const Result<NvidiaSmiReport>& report = GpuReport(view.node);
  return DefaultNodeBusbwFloorGbps(report.ok() && !report->gpus.empty() ? report->gpus.front().name : "");
}

// The nodes that run the job: the others get their skip or blocked result here.
std::vector<GpuJobNode> ReadyNodes(ClusterRun& run) {
  std::vector<GpuJobNode> ready;
  for (GpuJobNode& node : GpuJobNodes(run)) {
    if (!node.why_not.empty()) {
      run.Add(run.Blocked(kCheck, kNode, node.host, node.cause, node.why_not));
    } else if (std::string why = NoAllReduce(run.View(node.host)); !why.empty()) {
      run.Add(Skip(kCheck, kNode, node.host, why));
    } else {
      ready.push_back(std::move(node));
    }
  }
  return ready;
}

void RunPhase(ClusterRun& run) {
  const std::vector<GpuJobNode> ready = ReadyNodes(run);
  const std::string& submit = run.SubmitHost();
  std::vector<HostCommand> jobs;
  for (const GpuJobNode& node : ready) {
    Argv argv = {"srun", "-N", "1", "-w", node.host, "--gres=gpu:" + std::to_string(node.gpus), "--immediate=60",
                 "--time=15", "-J", "clusterctl-validate"};
    for (std::string& arg : AllReducePerf(run.View(node.host).vars, node.gpus)) argv.push_back(std::move(arg));
    jobs.push_back({.host = submit, .argv = std::move(argv), .timeout_s = 900});
  }
  std::vector<Result<ToolOutput>> outputs;
  if (run.Reached(submit)) outputs = run.RunCommands(jobs);
  else outputs.assign(jobs.size(), Status::Unavailable("the submit host " + submit + " is unreachable"));
  for (size_t i = 0; i < ready.size(); ++i) {
    const std::string& host = ready[i].host;
    if (!outputs[i].ok()) run.Add(Fail(kCheck, kNode, host, outputs[i].status().message()));
    else run.Add(EvaluateNccl(kCheck, kNode, host, *outputs[i], BusbwFloor(run.View(host)), std::nullopt));
  }
}

const CheckRegistration kNcclNode({.name = kCheck,
                                   .scope = kNode,
                                   .summary = "all_reduce_perf within a node: correct, bandwidth above the floor",
                                   .rank = 260,
                                   .requirements = {ComputeNodeOfSlurm()},
                                   .prerequisites = {{"slurm.node"}, {"gpu.count"}},
                                   .probes = {&NcclTestsProbe()},
                                   .cluster_phase = {.run = RunPhase, .slurm_jobs = true},
                                   .needs_controller = true,
                                   .variables = R"(
validate_nccl_busbw_min_gbps:
  default: null
  type: number
  minimum: 0
  description: all_reduce bus bandwidth floor in GB/s; null, by GPU model (node) or IB line rate (cluster)
validate_nccl_tests_dir:
  default: /usr/local/bin
  syntax: path
  description: where all_reduce_perf is looked for (then PATH)
validate_nccl_max_bytes:
  default: 1G
  syntax: size
  description: the largest all_reduce size (all_reduce_perf -e)
)"});

}  // namespace
}  // namespace clusterctl::checks
