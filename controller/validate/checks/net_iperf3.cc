// net.iperf3 (acceptance): iperf3's TCP throughput between ring neighbours
// among the selected nodes, on the management network and on each IPoIB
// interface both nodes of a pair have (the same interface name: the same
// rail), in the rounds of pair_schedule.h (no node in two pairs at once).
// Each node sends once per network (to the next node in the ring; with two
// nodes, each to the other) for validate_acceptance_seconds, the first
// second omitted (TCP's slow start); its reading is what the receiver got
// (iperf3 -J: end.sum_received). The server is a transient unit serving one
// test (systemd-run, `iperf3 -s -1`, stopped after the test's time and a
// margin whatever happens to this run). A slow sender (a throttled link, a
// bad NIC) is named; the receiver is in the detail. Judged per network
// against the floor and the peers' median (peer_judgement.h).
#include <unistd.h>

#include <map>

#include "common/strings.h"
#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/fabric_checks.h"
#include "controller/validate/pair_schedule.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "net.iperf3";
constexpr const char* kManagement = "mgmt";

const ProbeSpec kInstalled{.id = "iperf3 installed", .commands = {{"test", "-x", "/usr/bin/iperf3"}}, .timeout_s = 10};

// A network the nodes are measured on: the management addresses or one IPoIB interface's.
struct Network {
  std::string name;                      // "mgmt", "ib0"
  std::vector<std::string> nodes;        // the measured nodes on it, in --limit's order
  std::map<std::string, std::string> address;  // node -> its address there
};

std::vector<Network> NetworksOf(const Inventory& inventory, const std::vector<std::string>& nodes) {
  std::vector<Network> networks{{kManagement, {}, {}}};
  std::map<std::string, size_t> index;
  for (const std::string& node : nodes) {
    const Host* host = inventory.FindHost(node);
    networks[0].nodes.push_back(node);
    networks[0].address[node] = host->address;
    for (const Interface& i : host->interfaces) {
      if (!IsIpoibName(i.name) || i.address.empty()) continue;
      auto [it, added] = index.emplace(i.name, networks.size());
      if (added) networks.push_back({i.name, {}, {}});
      networks[it->second].nodes.push_back(node);
      networks[it->second].address[node] = i.address;
    }
  }
  return networks;
}

// Each node sends exactly once: the ring, and with two nodes both ways.
std::vector<NodePair> SendingPairs(size_t n) {
  std::vector<NodePair> pairs = RingPairs(n);
  if (n == 2) pairs.emplace_back(1, 0);
  return pairs;
}

int Port(const NodeView& view) { return static_cast<int>(IntegerVariable(view.vars, "validate_iperf3_port").value_or(5201)); }

// The receiver's bits per second of iperf3 -J's report; its "error" as the problem.
Result<double> ReceivedBitsPerSecond(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return Status::InvalidArgument("iperf3 printed no JSON report");
  if (doc.contains("error") && doc["error"].is_string()) return Status::InvalidArgument("iperf3: " + doc["error"].get<std::string>());
  const nlohmann::json* end = doc.contains("end") ? &doc["end"] : nullptr;
  if (end == nullptr || !end->contains("sum_received") || !(*end)["sum_received"].contains("bits_per_second") ||
      !(*end)["sum_received"]["bits_per_second"].is_number()) {
    return Status::InvalidArgument("iperf3's report has no end.sum_received.bits_per_second");
  }
  return (*end)["sum_received"]["bits_per_second"].get<double>();
}

// One send: the server's node and address, the client's.
struct Send {
  std::string network, server, client, server_address, client_address;
};

struct Measured {
  std::vector<PeerReading> readings;   // per network, the senders that were measured
  std::vector<PartResult> problems;    // the sends that gave no reading
};

void RunRound(ClusterRun& run, const std::vector<Send>& round, int& units, Measured& measured) {
  std::vector<HostCommand> starts, clients, stops;
  for (const Send& s : round) {
    const NodeView server = run.View(s.server);
    const int seconds = MeasureSeconds(server);
    const std::string unit = "clusterctl-iperf3-" + std::to_string(::getpid()) + "-" + std::to_string(units++);
    const std::string port = std::to_string(Port(server));
    starts.push_back({.host = s.server, .argv = {"systemd-run", "--unit=" + unit, "--collect", "-p",
                                                 "RuntimeMaxSec=" + std::to_string(seconds + 60), "/usr/bin/iperf3",
                                                 "-s", "-1", "-p", port}, .timeout_s = 30});
    Argv client = {"/usr/bin/iperf3", "-c", s.server_address, "-p", port, "-t", std::to_string(seconds), "-O", "1", "-J"};
    if (s.network != kManagement) client.insert(client.end(), {"-B", s.client_address});
    clients.push_back({.host = s.client, .argv = {"sleep", "1"}, .timeout_s = 5});
    clients.push_back({.host = s.client, .argv = client, .timeout_s = seconds + 30});
    stops.push_back({.host = s.server, .argv = {"systemctl", "stop", unit}, .timeout_s = 15});
  }
  const std::vector<Result<ToolOutput>> started = run.RunCommands(starts);
  const std::vector<Result<ToolOutput>> sent = run.RunCommands(clients);
  run.RunCommands(stops);
  for (size_t k = 0; k < round.size(); ++k) {
    const Send& s = round[k];
    auto problem = [&](const std::string& why, std::vector<std::string> evidence = {}) {
      measured.problems.push_back({s.client, s.network, Fail(kCheck, kNode, s.client, why, std::move(evidence), "unknown")});
    };
    if (!started[k].ok()) { problem(started[k].status().message()); continue; }
    if (started[k]->exit_code != 0) { problem("could not start the iperf3 server on " + s.server, TailLines(started[k]->Both())); continue; }
    const Result<ToolOutput>& out = sent[2 * k + 1];
    if (!out.ok()) { problem(out.status().message()); continue; }
    Result<double> bps = ReceivedBitsPerSecond(out->out);
    if (!bps.ok()) { problem("to " + s.server + ": " + bps.status().message(), TailLines(out->Both())); continue; }
    const char* floor = s.network == kManagement ? "validate_iperf3_min_gbps" : "validate_iperf3_ipoib_min_gbps";
    measured.readings.push_back(ReadingOf(run.View(s.client), s.network, *bps / 1e9, floor, "validate_iperf3_outlier_percent"));
    measured.readings.back().subject = s.client + "\n" + s.network + "\n" + s.server;
  }
}

// The sends of every network, in rounds (a network's rounds one after another).
std::vector<std::vector<Send>> Rounds(const std::vector<Network>& networks) {
  std::vector<std::vector<Send>> rounds;
  for (const Network& n : networks) {
    for (const std::vector<NodePair>& round : ScheduleRounds(SendingPairs(n.nodes.size()))) {
      std::vector<Send> sends;
      for (const NodePair& p : round) {
        const std::string& server = n.nodes[p.first];
        const std::string& client = n.nodes[p.second];
        sends.push_back({n.name, server, client, n.address.at(server), n.address.at(client)});
      }
      rounds.push_back(std::move(sends));
    }
  }
  return rounds;
}

// The judged readings as per-node parts ("mgmt", "ib0"), the receiver named.
std::vector<PartResult> Judged(const Measured& measured) {
  std::vector<PeerReading> readings = measured.readings;
  std::vector<std::vector<std::string>> keys;
  for (PeerReading& r : readings) {
    keys.push_back(Split(r.subject, '\n'));
    r.subject = keys.back()[0];
  }
  std::vector<CheckResult> judged = JudgeAgainstPeers({kCheck, kNode, "Gb/s"}, readings);
  std::vector<PartResult> parts = measured.problems;
  for (size_t k = 0; k < judged.size(); ++k) {
    judged[k].detail = "to " + keys[k][2] + " " + judged[k].detail;
    parts.push_back({keys[k][0], keys[k][1], std::move(judged[k])});
  }
  return parts;
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = MeasuredNodes(run, kCheck, kInstalled, "iperf3");
  if (nodes.size() < 2) {
    for (const std::string& node : nodes) run.Add(Skip(kCheck, kNode, node, "needs two nodes with iperf3 (found 1)"));
    return;
  }
  Measured measured;
  int units = 0;
  const std::vector<std::vector<Send>> rounds = Rounds(NetworksOf(run.inventory(), nodes));
  for (size_t r = 0; r < rounds.size(); ++r) {
    const int seconds = MeasureSeconds(run.View(rounds[r].front().client));
    if (run.SecondsLeft() <= seconds + 15) {
      for (const Send& s : rounds[r]) measured.problems.push_back({s.client, s.network, Fail(kCheck, kNode, s.client, run.DeadlineText(), {}, "unknown")});
      continue;
    }
    run.Progress(std::string(kCheck) + ": round " + std::to_string(r + 1) + " of " + std::to_string(rounds.size()) +
                 " (" + rounds[r].front().network + ", " + std::to_string(rounds[r].size()) + " pairs, " +
                 std::to_string(seconds) + " s)");
    RunRound(run, rounds[r], units, measured);
  }
  for (CheckResult& result : PerNode(Judged(measured))) run.Add(std::move(result));
}

const CheckRegistration kNetIperf3({.name = kCheck,
                                    .scope = kNode,
                                    .summary = "iperf3 to the ring neighbour on the management network and each IPoIB interface, against the floor and the peers' median",
                                    .rank = 300,
                                    .probes = {&kInstalled},
                                    .cluster_phase = {.run = RunPhase},
                                    .variables = R"yaml(
validate_iperf3_min_gbps:
  default: 0.5
  type: number
  minimum: 0
  description: "acceptance: iperf3's floor on the management network, in Gb/s (a 1 GbE network passes)"
validate_iperf3_ipoib_min_gbps:
  default: 1
  type: number
  minimum: 0
  description: "acceptance: iperf3's floor on each IPoIB interface, in Gb/s"
validate_iperf3_outlier_percent:
  default: 20
  type: number
  minimum: 0
  maximum: 100
  description: "acceptance: a node sending slower than its peers' median by more than this fails net.iperf3"
validate_iperf3_port:
  default: 5201
  type: integer
  minimum: 1
  maximum: 65535
  description: "acceptance: the TCP port iperf3's server listens on during net.iperf3"
)yaml",
                                    .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
