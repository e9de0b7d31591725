// slurm.gres: Slurm's GPU count for the node equals the GPUs PCI detection
// found, and a type Slurm gives them is the one their model names.
#include "controller/validate/checks/common.h"
#include "controller/views/gpu_type.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  const std::string& host = v.host();
  if (v.slurm == nullptr) return v.Blocked("slurm.gres", "slurm.controller", "slurmctld's view is not read on the node");
  const SlurmReading& slurm = *v.slurm;
  if (slurm.problem_check == "slurm.node") return v.Blocked("slurm.gres", "slurm.node", slurm.problem);
  if (!slurm.problem.empty()) return v.Blocked("slurm.gres", slurm.problem_check, slurm.problem);
  auto it = slurm.nodes.find(host);
  if (it == slurm.nodes.end()) return Skip("slurm.gres", kNode, host, host + " is not registered with slurmctld");
  if (v.node.pci_gpus == 0 && it->second.gpus.value_or(0) == 0) {
    return Skip("slurm.gres", kNode, host, "no GPUs on " + host + " and none in Slurm");
  }
  return EvaluateGres(host, it->second, v.node.pci_gpus, NodeGpuType(v.node.facts));
}

const CheckRegistration kSlurmGres({.name = "slurm.gres",
                                    .scope = kNode,
                                    .summary = "Slurm's GPU count equals the detected GPUs, and their type the model's",
                                    .rank = 70,
                                    .requirements = {ComputeNodeOfSlurm()},
                                    .verdict = Judge,
                                    .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
