// The validation run's fabric phase: fabric.ipoib pings every other host's
// IPoIB address on the same interface name (the same rail) from each
// selected node, with DF set at the configured MTU.
#include "controller/validate/fabric_checks.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/validator.h"

namespace clusterctl::validation_internal {

void Validator::Fabric() {
  if (!Want("fabric.ipoib")) return;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> peers_on;  // interface -> (host, address)
  for (const Host& h : in_.inventory->hosts) {
    for (const Interface& i : h.interfaces) {
      if (IsIpoibName(i.name)) peers_on[i.name].emplace_back(h.name, i.address);
    }
  }
  std::map<std::string, std::vector<IpoibInterface>> interfaces_of;
  std::map<std::string, std::vector<IpoibPing>> pings_of;  // entries made before the fan-out
  std::vector<const Host*> sources;
  for (const Host* h : in_.selected) {
    const NodeProbe& probe = probes_.at(h->name);
    if (!probe.reached) continue;  // `reachable` already failed it
    std::vector<IpoibInterface>& interfaces = interfaces_of[h->name];
    interfaces = IpoibInterfacesOf(*h, probe.readings.facts, ThresholdsOf(h->name).ipoib_mtu.value_or(0));
    std::vector<IpoibPing>& pings = pings_of[h->name];
    for (const IpoibInterface& i : interfaces) {
      if (!i.Usable()) continue;
      for (const auto& [peer, address] : peers_on[i.name]) {
        if (peer != h->name) pings.push_back({i.name, peer, address, i.TestMtu(), {}});
      }
    }
    if (!pings.empty()) sources.push_back(h);
  }
  const std::string none;
  in_.run_on(sources, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
    std::vector<IpoibPing>& pings = pings_of.at(result.host->name);
    for (size_t k = 0; k < pings.size(); ++k) {
      if (SecondsLeft() <= 2) {
        pings[k].output.started = true;
        pings[k].output.timed_out = true;
        continue;
      }
      std::vector<std::string> argv = IpoibPingArgv(pings[k]);
      pings[k].output = co_await ExecOnNode(agent, argv, none, Limit(10));
    }
  });
  for (const Host* h : in_.selected) {
    if (!probes_.at(h->name).reached) continue;
    Add(EvaluateIpoibReach(h->name, interfaces_of[h->name], pings_of[h->name]));
  }
}

}  // namespace clusterctl::validation_internal
