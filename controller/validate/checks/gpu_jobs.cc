#include "controller/validate/checks/gpu_jobs.h"

#include <algorithm>

#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

// The defaults validate_nccl_tests_dir and validate_nccl_max_bytes declare
// (a unit test's view may set neither).
constexpr const char* kNcclTestsDir = "/usr/local/bin";
constexpr const char* kNcclMaxBytes = "1G";

// Why `node` takes no GPU job; why_not stays "" when it can take one.
void JudgeGpuJobNode(const ClusterRun& run, const std::vector<std::string>& usable,
                     const std::map<std::string, std::string>& unusable, GpuJobNode& node) {
  const std::string& h = node.host;
  if (node.gpus == 0) {
    node.why_not = "no GPUs on " + h;
  } else if (std::find(usable.begin(), usable.end(), h) == usable.end()) {
    auto reason = unusable.find(h);
    node.cause = reason != unusable.end() ? reason->second.substr(0, reason->second.find(' ')) : "slurm.node";
    node.why_not = h + " cannot run jobs (" + (reason != unusable.end() ? reason->second : "not usable") + ")";
  } else if (!run.NodeCheckPassed("gpu.count", h)) {
    node.cause = run.FailureReported("gpu.driver", h) ? "gpu.driver" : "gpu.count";
    node.why_not = "the GPUs of " + h + " are not usable (gpu.driver or gpu.count failed)";
  }
}

}  // namespace

std::vector<GpuJobNode> GpuJobNodes(const ClusterRun& run) {
  const std::vector<std::string> usable = run.UsableComputeNodes();
  const std::map<std::string, std::string> unusable = run.UnusableComputeNodes();
  std::vector<GpuJobNode> nodes;
  for (const std::string& host : run.ComputeNodes()) {
    GpuJobNode node{.host = host, .gpus = run.View(host).node.pci_gpus};
    JudgeGpuJobNode(run, usable, unusable, node);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

const ProbeSpec& NcclTestsProbe() {
  static const ProbeSpec probe{
      .id = "nccl-tests installed",
      .command_for = [](const NodeView& v) -> Argv { return {"test", "-x", NcclTestsDir(v.vars) + "/all_reduce_perf"}; },
      .timeout_s = 10,
      .when = [](const NodeReadings& n) { return n.HasGpus(); }};
  return probe;
}

bool HasNcclTests(const NodeReadings& node) { return node.Output(NcclTestsProbe().id).Succeeded(); }

std::string NcclTestsDir(const nlohmann::json& vars) {
  return StringVariable(vars, "validate_nccl_tests_dir").value_or(kNcclTestsDir);
}

Argv AllReducePerf(const nlohmann::json& vars, int gpus) {
  return {NcclTestsDir(vars) + "/all_reduce_perf", "-b", "8", "-e",
          StringVariable(vars, "validate_nccl_max_bytes").value_or(kNcclMaxBytes), "-f", "2", "-g", std::to_string(gpus)};
}

}  // namespace clusterctl::checks
