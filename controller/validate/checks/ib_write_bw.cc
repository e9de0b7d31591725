// ib.write_bw: perftest's ib_write_bw between ring neighbours among the
// selected nodes whose ib.ports passed and that have perftest, in the rounds
// of pair_schedule.h (no node in two pairs at once). Per pair the server runs
// as a transient unit (systemd-run, RuntimeMaxSec=90: it serves one test and
// ends, or is stopped after 90 s whatever happens to this run) on the
// node's first expected port; the client connects to the server's ib*
// interface address from the inventory, else its management address. The
// verdict on the client's output: checks.h's EvaluateIbWriteBw.
#include <unistd.h>

#include <algorithm>

#include "controller/validate/checks/common.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/pair_schedule.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "ib.write_bw";
constexpr CheckScope kPair = CheckScope::kPair;
constexpr int kRoundSeconds = 10;  // a round needs at least this long: fewer left, its pairs fail as not run

const ProbeSpec kInstalled{.id = "ib_write_bw installed",
                           .commands = {{"test", "-x", "/usr/bin/ib_write_bw"}},
                           .timeout_s = 10,
                           .when = [](const NodeReadings& n) { return n.HasIbPorts(); }};

// A node of the pair runs: the port it tests, the address its client reaches
// it on, and its own variables.
struct PairNode {
  std::string name;
  IbPortStatus port;
  std::string address;
  IbWriteBwLimits limits;
};

// The address a client reaches `host` on: an ib* interface's, else the management address.
std::string ServerAddress(const Inventory& inventory, const std::string& host) {
  const Host* h = inventory.FindHost(host);
  for (const Interface& i : h->interfaces) {
    if (i.name.rfind("ib", 0) == 0 && !i.address.empty()) return i.address;
  }
  return h->address;
}

IbWriteBwLimits LimitsOf(const nlohmann::json& vars) {
  return {NumberVariable(vars, "validate_ib_write_bw_min_mbps"),
          IntegerVariable(vars, "validate_ib_write_bw_message_bytes").value_or(65536)};
}

// The selected nodes whose ib.ports passed and that have perftest, in
// --limit's order, each with the first port ib.ports expects; an unreachable
// one fails (its adapters are unknown: no reading, no pass).
std::vector<PairNode> Candidates(ClusterRun& run) {
  std::vector<PairNode> nodes;
  for (const ClusterRun::ProbedHost& h : run.ProbedHosts()) {
    if (!h.selected) continue;
    if (!h.reached) {
      run.Add(Fail(kCheck, kPair, h.name, "not checked: " + h.name + " is unreachable (" + h.unreachable + ")", {}, "unknown"));
      continue;
    }
    const NodeView view = run.View(h.name);
    if (!view.node.Output(kInstalled.id).Succeeded() || run.NodeOutcome("ib.ports", h.name) != CheckOutcome::kPass) continue;
    std::vector<IbPortStatus> expected = ExpectedIbPorts(SysfsIbPorts(view.node.facts), view.vars);
    if (expected.empty()) continue;
    nodes.push_back({h.name, expected.front(), ServerAddress(run.inventory(), h.name), LimitsOf(view.vars)});
  }
  return nodes;
}

Argv ServerArgv(const std::string& unit, const PairNode& server) {
  return {"systemd-run", "--unit=" + unit, "--collect", "-p", "RuntimeMaxSec=90", "/usr/bin/ib_write_bw",
          "-d", server.port.device, "-i", std::to_string(server.port.port), "-s",
          std::to_string(server.limits.message_bytes), "-D", "5", "-F"};
}

Argv ClientArgv(const PairNode& client, const std::string& server_address) {
  return {"/usr/bin/ib_write_bw", "-d", client.port.device, "-i", std::to_string(client.port.port), "-s",
          std::to_string(client.limits.message_bytes), "-D", "5", "-F", server_address};
}

// One pair's verdict: the server's start, then the client's output, at the
// client's limits and the slower port's line rate.
CheckResult Judge(const PairNode& server, const PairNode& client, const Result<ToolOutput>& started,
                  const Result<ToolOutput>& measured) {
  const std::string subject = server.name + "+" + client.name;
  if (!started.ok()) return Fail(kCheck, kPair, subject, started.status().message());
  if (started->exit_code != 0) {
    return Fail(kCheck, kPair, subject, "could not start the ib_write_bw server on " + server.name, TailLines(started->Both()));
  }
  if (!measured.ok()) return Fail(kCheck, kPair, subject, measured.status().message());
  const double rate = std::min(server.port.rate_gbps, client.port.rate_gbps);
  return EvaluateIbWriteBw(subject, *measured, rate, client.limits);
}

// One round: every server started, then every client (after a second for
// the server's listening socket), then every server's unit stopped; each
// step concurrently across the round's nodes.
void RunRound(ClusterRun& run, const std::vector<PairNode>& nodes, const std::vector<NodePair>& round, int& units) {
  std::vector<HostCommand> starts, clients, stops;
  for (const NodePair& pair : round) {
    const PairNode& server = nodes[pair.first];
    const PairNode& client = nodes[pair.second];
    const std::string unit = "clusterctl-ib-write-bw-" + std::to_string(::getpid()) + "-" + std::to_string(units++);
    starts.push_back({.host = server.name, .argv = ServerArgv(unit, server), .timeout_s = 30});
    clients.push_back({.host = client.name, .argv = {"sleep", "1"}, .timeout_s = 5});
    clients.push_back({.host = client.name, .argv = ClientArgv(client, server.address), .timeout_s = 60});
    stops.push_back({.host = server.name, .argv = {"systemctl", "stop", unit}, .timeout_s = 15});
  }
  const std::vector<Result<ToolOutput>> started = run.RunCommands(starts);
  const std::vector<Result<ToolOutput>> measured = run.RunCommands(clients);
  run.RunCommands(stops);
  for (size_t k = 0; k < round.size(); ++k) {
    run.Add(Judge(nodes[round[k].first], nodes[round[k].second], started[k], measured[2 * k + 1]));
  }
}

void RunPhase(ClusterRun& run) {
  const std::vector<PairNode> nodes = Candidates(run);
  if (nodes.size() < 2) {
    return run.Add(Skip(kCheck, kPair, run.cluster(),
                        "needs two nodes with healthy InfiniBand ports and perftest's ib_write_bw (found " +
                            std::to_string(nodes.size()) + ")"));
  }
  int units = 0;
  for (const std::vector<NodePair>& round : ScheduleRounds(RingPairs(nodes.size()))) {
    if (run.SecondsLeft() > kRoundSeconds) {
      RunRound(run, nodes, round, units);
      continue;
    }
    for (const NodePair& pair : round) {
      run.Add(Fail(kCheck, kPair, nodes[pair.first].name + "+" + nodes[pair.second].name, run.DeadlineText()));
    }
  }
}

const CheckRegistration kIbWriteBw({.name = kCheck,
                                    .scope = kPair,
                                    .summary = "ib_write_bw between ring neighbours above the floor",
                                    .rank = 210,
                                    .prerequisites = {{"ib.ports"}},
                                    .probes = {&kInstalled},
                                    .cluster_phase = {.run = RunPhase},
                                    .variables = R"(
validate_ib_write_bw_min_mbps:
  default: null
  type: number
  minimum: 0
  description: ib_write_bw floor in MB/s; null, 88% of the port's line rate
validate_ib_write_bw_message_bytes:
  default: 65536
  minimum: 1
  description: message size the ib_write_bw floor applies to
)"});

}  // namespace
}  // namespace clusterctl::checks
