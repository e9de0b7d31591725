// slurm.gres: Slurm's GPU count for the node equals the GPUs PCI detection found.
#include "controller/validate/checks/common.h"

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
  return EvaluateGres(host, it->second, v.node.pci_gpus);
}

const CheckRegistration kSlurmGres({.name = "slurm.gres",
                                    .scope = kNode,
                                    .summary = "Slurm's GPU count equals the detected GPUs",
                                    .rank = 70,
                                    .requirements = {ComputeNodeOfSlurm()},
                                    .verdict = Judge,
                                    .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
