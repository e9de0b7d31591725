// fabric.ipoib: from each selected node that answered, a ping with DF set at
// the configured MTU (the ipoib role's ipoib_mtu; 0 or unset: the
// interface's own) to every other host's IPoIB address on the same interface
// name (the same rail), from each of its IPoIB interfaces that is present,
// up and holds its address. The interfaces from the inventory and facts, the
// ping and the verdict: fabric_checks.h. An unreachable node already failed
// every node check (node_verdicts.cc).
#include <map>
#include <utility>

#include "controller/validate/checks/common.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/fabric_checks.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "fabric.ipoib";
constexpr int kMinimumMtu = 68;  // IPv4's: a smaller ipoib_mtu configures none

using Peers = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;  // interface -> (host, address)

// One selected node's interfaces and the pings it sends.
struct Source {
  std::string host;
  std::vector<IpoibInterface> interfaces;
  std::vector<IpoibPing> pings;
};

Peers PeersOf(const Inventory& inventory) {
  Peers peers;
  for (const Host& h : inventory.hosts) {
    for (const Interface& i : h.interfaces) {
      if (IsIpoibName(i.name)) peers[i.name].emplace_back(h.name, i.address);
    }
  }
  return peers;
}

int ConfiguredMtu(const nlohmann::json& vars) {
  const std::optional<double> mtu = NumberVariable(vars, "ipoib_mtu");
  return mtu && *mtu >= kMinimumMtu ? static_cast<int>(*mtu) : 0;
}

Source SourceOf(const ClusterRun& run, const std::string& host, Peers& peers) {
  const NodeView view = run.View(host);
  Source source{host, IpoibInterfacesOf(*run.inventory().FindHost(host), view.node.facts, ConfiguredMtu(view.vars)), {}};
  for (const IpoibInterface& i : source.interfaces) {
    if (!i.Usable()) continue;
    for (const auto& [peer, address] : peers[i.name]) {
      if (peer != host) source.pings.push_back({i.name, peer, address, i.TestMtu(), {}});
    }
  }
  return source;
}

// A ping that did not run (the deadline, the node lost): timed out, with why as its output.
ToolOutput NotRun(const Status& why) {
  ToolOutput output;
  output.timed_out = true;
  output.err = why.message();
  return output;
}

void RunPhase(ClusterRun& run) {
  Peers peers = PeersOf(run.inventory());
  std::vector<Source> sources;
  std::vector<HostCommand> commands;  // every source's pings, in order
  for (const ClusterRun::ProbedHost& h : run.ProbedHosts()) {
    if (!h.selected || !h.reached) continue;
    sources.push_back(SourceOf(run, h.name, peers));
    for (const IpoibPing& p : sources.back().pings) commands.push_back({.host = h.name, .argv = IpoibPingArgv(p), .timeout_s = 10});
  }
  std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  size_t next = 0;
  for (Source& source : sources) {
    for (IpoibPing& p : source.pings) {
      Result<ToolOutput>& output = outputs[next++];
      p.output = output.ok() ? std::move(*output) : NotRun(output.status());
    }
    run.Add(EvaluateIpoibReach(source.host, source.interfaces, source.pings));
  }
}

const CheckRegistration kFabricIpoib({.name = kCheck,
                                      .scope = kNode,
                                      .summary = "every other node's IPoIB address reached at the configured MTU, DF set",
                                      .rank = 220,
                                      .cluster_phase = {.run = RunPhase}});

}  // namespace
}  // namespace clusterctl::checks
