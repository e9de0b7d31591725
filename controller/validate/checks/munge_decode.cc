// munge.decode: a credential made on the node decodes on the Slurm
// controller and the controller's decodes on the node.
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

// The controller's own verdict: at least one other node decodes its credentials.
CheckResult JudgeController(const NodeView& v, const SlurmReading& slurm) {
  if (slurm.tried_elsewhere > 0 && slurm.decoded_elsewhere == 0) {
    return Fail("munge.decode", kNode, v.host(),
                "no other node decodes the controller's credentials (" + std::to_string(slurm.tried_elsewhere) +
                    " tried): " + v.host() + "'s munge.key differs from all of them");
  }
  return Pass("munge.decode", kNode, v.host(),
              std::to_string(slurm.decoded_elsewhere) + "/" + std::to_string(slurm.tried_elsewhere) +
                  " nodes decode its credential");
}

const ToolOutput& Decoded(const std::map<std::string, ToolOutput>& by_node, const std::string& host) {
  static const ToolOutput kNotTried;  // exit 0: nothing to judge
  auto it = by_node.find(host);
  return it == by_node.end() ? kNotTried : it->second;
}

CheckResult JudgeBothWays(const NodeView& v, const SlurmReading& slurm) {
  const std::string& host = v.host();
  std::vector<std::string> why, evidence;
  const ToolOutput& here_on_controller = Decoded(slurm.decoded_on_controller, host);
  if (here_on_controller.exit_code != 0) {
    why.push_back("a credential made on " + host + " does not decode on " + slurm.controller + " (controller)");
    for (auto& l : TailLines(here_on_controller.Both(), 3)) evidence.push_back(slurm.controller + ": " + l);
  }
  const ToolOutput& controller_here = Decoded(slurm.controller_decoded_here, host);
  if (controller_here.started && controller_here.exit_code != 0) {
    why.push_back("a credential made on " + slurm.controller + " does not decode on " + host);
    for (auto& l : TailLines(controller_here.Both(), 3)) evidence.push_back(host + ": " + l);
  }
  if (!why.empty()) {
    return Fail("munge.decode", kNode, host, Join(why, "; ") + ": munge.key differs or munged is broken", evidence);
  }
  return Pass("munge.decode", kNode, host, "both ways", "", "decodes on " + slurm.controller + " and back");
}

CheckResult Judge(const NodeView& v) {
  const ToolOutput& credential = v.node.Output(MungeCredentialProbe().id);
  if (!credential.started) return Skip("munge.decode", kNode, v.host(), "munge is not installed on " + v.host());
  if (credential.exit_code != 0) {
    return Fail("munge.decode", kNode, v.host(), "munge -n failed on " + v.host() + " (is munged running?)",
                TailLines(credential.Both()));
  }
  if (v.role.controller && v.slurm != nullptr) return JudgeController(v, *v.slurm);
  if (v.slurm == nullptr || !v.slurm->controller_reached) {
    return v.Blocked("munge.decode", "slurm.controller", "the controller is unreachable");
  }
  return JudgeBothWays(v, *v.slurm);
}

const CheckRegistration kMungeDecode({.name = "munge.decode",
                                      .scope = kNode,
                                      .summary = "munge credentials decode both ways with the controller",
                                      .rank = 30,
                                      .requirements = {SlurmHost()},
                                      .probes = {&MungeCredentialProbe()},
                                      .verdict = Judge,
                                      .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
