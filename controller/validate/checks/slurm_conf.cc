// slurm.conf: the node's /etc/slurm/slurm.conf is the controller's.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  const std::string& host = v.host();
  const ToolOutput& digest_run = v.node.Output(SlurmConfDigestProbe().id);
  if (digest_run.exit_code != 0) {
    return Fail("slurm.conf", kNode, host, "cannot read /etc/slurm/slurm.conf on " + host, TailLines(digest_run.Both()));
  }
  const std::string reference = v.slurm != nullptr ? v.slurm->controller_conf_digest : "";
  if (reference.empty()) return Skip("slurm.conf", kNode, host, "the controller's slurm.conf could not be read");
  std::string digest = digest_run.out.substr(0, 64);
  if (digest != reference) {
    return Fail("slurm.conf", kNode, host, "/etc/slurm/slurm.conf on " + host + " differs from " + v.slurm->controller + "'s",
                {host + ": sha256 " + digest, v.slurm->controller + ": sha256 " + reference}, digest.substr(0, 12),
                "== " + reference.substr(0, 12));
  }
  return Pass("slurm.conf", kNode, host, "sha256 " + digest.substr(0, 12), "== controller's");
}

const CheckRegistration kSlurmConf({.name = "slurm.conf",
                                    .scope = kNode,
                                    .summary = "slurm.conf identical to the controller's",
                                    .rank = 60,
                                    .requirements = {SlurmHost()},
                                    .probes = {&SlurmConfDigestProbe()},
                                    .verdict = Judge,
                                    .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
