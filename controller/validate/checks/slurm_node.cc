// slurm.node: slurmd active on the node and slurmctld's view of it healthy.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const ProbeSpec kSlurmdActive{.id = "slurmd active", .commands = {{"systemctl", "is-active", "slurmd"}}, .timeout_s = 15};

CheckResult Judge(const NodeView& v) {
  if (v.slurm == nullptr) return v.Blocked("slurm.node", "slurm.controller", "slurmctld's view is not read on the node");
  const SlurmReading& slurm = *v.slurm;
  if (slurm.problem_check == "slurm.node") return Fail("slurm.node", kNode, v.host(), slurm.problem, {}, "unknown");
  if (!slurm.problem.empty()) return v.Blocked("slurm.node", slurm.problem_check, slurm.problem);
  auto it = slurm.nodes.find(v.host());
  return EvaluateSlurmNode(v.host(), it == slurm.nodes.end() ? nullptr : &it->second, v.node.Output(kSlurmdActive.id));
}

const CheckRegistration kSlurmNode({.name = "slurm.node",
                                    .scope = kNode,
                                    .summary = "slurmd active and the node idle/mixed/allocated",
                                    .rank = 50,
                                    .requirements = {ComputeNodeOfSlurm()},
                                    .probes = {&kSlurmdActive},
                                    .verdict = Judge,
                                    .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
