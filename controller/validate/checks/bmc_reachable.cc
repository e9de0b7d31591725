// bmc.reachable: each selected host's BMC answers the controller over IPMI
// LAN with the inventory's credentials (`chassis power status`, through the
// power engine: the same ipmitool code as `clusterctl power status`). A
// wrong password, an unknown user, a cipher suite the BMC lacks or no answer
// fails that host alone, saying which (power/ipmitool.h). Out of band: a
// node that does not answer over SSH is still judged; a host without a bmc
// is skipped.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "bmc.reachable";

void RunPhase(ClusterRun& run) {
  const std::vector<const Host*> hosts = HostsWithBmc(run, kCheck);
  if (hosts.empty()) return;
  for (const PowerResult& answer : run.ThroughBmcs(hosts, PowerAction::kStatus)) {
    const std::string& host = answer.host->name;
    if (answer.ok) {
      run.Add(Pass(kCheck, kNode, host, answer.message, "", "the BMC at " + answer.host->bmc->address + " answers"));
    } else {
      run.Add(Fail(kCheck, kNode, host, answer.message, {}, "unknown"));
    }
  }
}

const CheckRegistration kBmcReachable({.name = kCheck,
                                       .scope = kNode,
                                       .summary = "the node's BMC answers IPMI over LAN with the inventory's credentials",
                                       .rank = 13,
                                       .cluster_phase = {.run = RunPhase},
                                       .out_of_band = true});

}  // namespace
}  // namespace clusterctl::checks
