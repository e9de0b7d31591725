// munge.decode: a credential made on the node decodes on the Slurm
// controller and the controller's decodes on the node. Judged on the node
// itself (the Slurm health check, no controller's view): munged answers.
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

// The controller's own verdict: at least one other node decodes its
// credentials. Other Slurm hosts that answered but decoded nothing (their
// sessions lost) are no reading; with no other Slurm host, munge -n working
// is all there is to read.
CheckResult JudgeController(const NodeView& v, const SlurmReading& slurm) {
  if (slurm.tried_elsewhere > 0 && slurm.decoded_elsewhere == 0) {
    return Fail("munge.decode", kNode, v.host(),
                "no other node decodes the controller's credentials (" + std::to_string(slurm.tried_elsewhere) +
                    " tried): " + v.host() + "'s munge.key differs from all of them");
  }
  if (slurm.tried_elsewhere == 0 && slurm.other_hosts > 0) {
    return Fail("munge.decode", kNode, v.host(),
                "not checked: none of the " + std::to_string(slurm.other_hosts) +
                    " other Slurm hosts decoded the controller's credential (their sessions ended first)",
                {}, "unknown");
  }
  if (slurm.tried_elsewhere == 0) {
    return Pass("munge.decode", kNode, v.host(), "munge -n", "", "no other Slurm host to decode its credential");
  }
  return Pass("munge.decode", kNode, v.host(),
              std::to_string(slurm.decoded_elsewhere) + "/" + std::to_string(slurm.tried_elsewhere) +
                  " nodes decode its credential");
}

const ToolOutput& Decoded(const std::map<std::string, ToolOutput>& by_node, const std::string& host) {
  auto it = by_node.find(host);
  return it == by_node.end() ? NotRunOutput() : it->second;
}

CheckResult JudgeBothWays(const NodeView& v, const SlurmReading& slurm) {
  const std::string& host = v.host();
  std::vector<std::string> why, evidence;
  const ToolOutput& here_on_controller = Decoded(slurm.decoded_on_controller, host);
  const ToolOutput& controller_here = Decoded(slurm.controller_decoded_here, host);
  if (!here_on_controller.started || !controller_here.started) {  // a session ended, or no credential to decode
    std::string missing = !here_on_controller.started   ? host + "'s credential was not decoded on " + slurm.controller
                          : slurm.controller_credential.empty() ? slurm.controller + " made no credential to decode here (munge -n failed there)"
                                                              : slurm.controller + "'s credential was not decoded on " + host;
    return Fail("munge.decode", kNode, host, "not checked: " + missing, {}, "unknown");
  }
  if (here_on_controller.exit_code != 0) {
    why.push_back("a credential made on " + host + " does not decode on " + slurm.controller + " (controller)");
    for (auto& l : TailLines(here_on_controller.Both(), 3)) evidence.push_back(slurm.controller + ": " + l);
  }
  if (controller_here.exit_code != 0) {
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
  if (v.slurm == nullptr) {  // on the node (the Slurm health check): its own munged answers
    return Pass("munge.decode", kNode, v.host(), "munge -n", "",
                "munged answers on " + v.host() + " (decoding with the controller is validate's)");
  }
  if (v.role.controller) return JudgeController(v, *v.slurm);
  if (!v.slurm->controller_reached) {
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
