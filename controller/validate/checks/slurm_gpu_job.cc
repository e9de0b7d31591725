// slurm.gpu_job: on each compute node that can take a GPU job, a job given
// all its GPUs (srun --gres=gpu:<n> nvidia-smi -L from the submit host) must
// list them all (EvaluateGpuJob, checks.h).
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/gpu_jobs.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "slurm.gpu_job";

void RunPhase(ClusterRun& run) {
  std::vector<GpuJobNode> ready;
  for (GpuJobNode& node : GpuJobNodes(run)) {
    if (!node.why_not.empty()) run.Add(run.Blocked(kCheck, kNode, node.host, node.cause, node.why_not));
    else ready.push_back(std::move(node));
  }
  const std::string& submit = run.SubmitHost();
  std::vector<HostCommand> jobs;
  for (const GpuJobNode& node : ready) {
    jobs.push_back({.host = submit,
                    .argv = {"srun", "-N", "1", "-w", node.host, "--gres=gpu:" + std::to_string(node.gpus), "--immediate=60",
                             "--time=5", "-J", "clusterctl-validate", "nvidia-smi", "-L"},
                    .timeout_s = 180});
  }
  std::vector<Result<ToolOutput>> outputs;
  if (run.Reached(submit)) outputs = run.RunCommands(jobs);
  else outputs.assign(jobs.size(), Status::Unavailable("the submit host " + submit + " is unreachable"));
  for (size_t i = 0; i < ready.size(); ++i) {
    if (!outputs[i].ok()) run.Add(Fail(kCheck, kNode, ready[i].host, outputs[i].status().message()));
    else run.Add(EvaluateGpuJob(ready[i].host, *outputs[i], ready[i].gpus));
  }
}

const CheckRegistration kSlurmGpuJob({.name = kCheck,
                                      .scope = kNode,
                                      .summary = "a job given all GPUs sees them all",
                                      .rank = 90,
                                      .requirements = {ComputeNodeOfSlurm()},
                                      .prerequisites = {{"slurm.node"}, {"gpu.count"}},
                                      .cluster_phase = {.run = RunPhase, .slurm_jobs = true},
                                      .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
