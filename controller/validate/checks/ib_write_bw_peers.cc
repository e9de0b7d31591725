// ib.write_bw_peers (acceptance): perftest's ib_write_bw between ring
// neighbours among the selected nodes whose ib.ports passed, for
// validate_acceptance_seconds per pair (ib_pairs.h: the same pairs, server
// unit and port as ib.write_bw), each node judged against the floor and its
// peers' median (peer_judgement.h). A pair's bandwidth is the client's
// average at validate_ib_write_bw_message_bytes (else its last row). A node's
// reading is the better of the two pairs it is in: a slow HCA or cable drags
// both its pairs down, while its neighbours each keep one good pair, so a
// lone slow node is the one named (with two nodes the one pair is both
// nodes' reading, and only the floor can tell). A pair that gave no reading
// fails both its nodes (no reading, no pass). The testbed's SIMULATED HCAs
// fail ib.ports, so no node of it is ever measured here.
#include <algorithm>
#include <map>

#include "common/strings.h"
#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/ib_pairs.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/reference_floors.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "ib.write_bw_peers";
constexpr const char* kPart = "ib";

// The nodes measured: those the check can measure (InfiniBand ports,
// ib.ports passed: MeasurableNodes) with perftest (the infiniband role
// installs it; without: a failure) and an expected port (else a skip).
std::vector<IbPairNode> Measured(ClusterRun& run) {
  std::vector<IbPairNode> nodes;
  for (const std::string& name : MeasurableNodes(run, kCheck)) {
    if (std::optional<IbPairNode> node = IbPairNodeOf(run, name)) {
      nodes.push_back(std::move(*node));
    } else if (!run.View(name).node.Output(kIbWriteBwInstalled.id).Succeeded()) {
      run.Add(Fail(kCheck, kNode, name, "perftest's ib_write_bw is not installed on " + name, {}, "unknown"));
    } else {
      run.Add(Skip(kCheck, kNode, name, "no expected InfiniBand port on " + name + " (validate_ib_ports)"));
    }
  }
  return nodes;
}

// One pair's bandwidth in MB/s from the client's output, or why there is none.
Result<double> PairMbps(const IbPairNode& server, const IbPairNode& client, const IbPairOutputs& out) {
  if (!out.started.ok()) return out.started.status();
  if (out.started->exit_code != 0) return Status::Unavailable("could not start the ib_write_bw server on " + server.name);
  if (!out.measured.ok()) return out.measured.status();
  if (!out.measured->Succeeded()) return Status::Unavailable("ib_write_bw failed (" + ExitDescription(*out.measured) + ")");
  Result<std::vector<IbBandwidthRow>> rows = ParseIbWriteBw(out.measured->out);
  if (!rows.ok()) return rows.status();
  const IbBandwidthRow* row = &rows->back();
  for (const IbBandwidthRow& r : *rows) {
    if (r.bytes == client.limits.message_bytes) row = &r;
  }
  return row->average_mbps;
}

// What the rounds gave: per node its pairs' bandwidths ("node01+node02 24056.72 MB/s") and its best.
struct NodeMeasure {
  std::vector<std::string> pairs;
  std::optional<double> best;
  std::vector<std::string> problems;  // "node01+node02: could not start ..."
  std::vector<std::string> evidence;
};

void Record(std::map<std::string, NodeMeasure>& by_node, const IbPairNode& server, const IbPairNode& client,
            const IbPairOutputs& out) {
  const std::string pair = server.name + "+" + client.name;
  const Result<double> mbps = PairMbps(server, client, out);
  for (const std::string& node : {server.name, client.name}) {
    NodeMeasure& m = by_node[node];
    if (!mbps.ok()) {
      m.problems.push_back(pair + ": " + mbps.status().message());
      if (out.measured.ok()) {
        for (std::string& line : TailLines(out.measured->Both(), 4)) m.evidence.push_back(std::move(line));
      }
      continue;
    }
    m.pairs.push_back(pair + " " + FormatNumber(*mbps) + " MB/s");
    m.best = std::max(m.best.value_or(0), *mbps);
  }
}

// The readings judged, and the nodes without one failed, as parts for PerNode.
std::vector<PartResult> Judged(ClusterRun& run, const std::vector<IbPairNode>& nodes,
                               const std::map<std::string, NodeMeasure>& by_node) {
  std::vector<PeerReading> readings;
  std::vector<PartResult> parts;
  for (const IbPairNode& node : nodes) {
    const auto it = by_node.find(node.name);
    if (it == by_node.end()) continue;
    const NodeMeasure& m = it->second;
    if (!m.problems.empty()) {
      parts.push_back({node.name, kPart, Fail(kCheck, kNode, node.name, Join(m.problems, "; "), m.evidence, "unknown")});
    }
    if (!m.best) continue;
    PeerReading r = ReadingOf(run.View(node.name), kPart, *m.best, nullptr, "validate_ib_write_bw_outlier_percent");
    r.floor = node.limits.min_mbps.value_or(DefaultIbWriteBwFloorMbps(node.port.rate_gbps));
    readings.push_back(std::move(r));
  }
  std::vector<CheckResult> judged = JudgeAgainstPeers({kCheck, kNode, "MB/s"}, readings);
  for (CheckResult& r : judged) {
    r.detail += " (best of " + Join(by_node.at(r.subject).pairs, ", ") + ")";
    parts.push_back({r.subject, kPart, std::move(r)});
  }
  return parts;
}

void RunPhase(ClusterRun& run) {
  const std::vector<IbPairNode> nodes = Measured(run);
  if (nodes.size() < 2) {
    for (const IbPairNode& node : nodes) {
      run.Add(Skip(kCheck, kNode, node.name, "needs two nodes with healthy InfiniBand ports and perftest (found 1)"));
    }
    return;
  }
  std::map<std::string, NodeMeasure> by_node;
  int units = 0;
  const std::vector<std::vector<NodePair>> rounds = ScheduleRounds(RingPairs(nodes.size()));
  for (size_t k = 0; k < rounds.size(); ++k) {
    const int seconds = MeasureSeconds(run.View(nodes.front().name));
    if (run.SecondsLeft() <= seconds + 15) {
      for (const NodePair& p : rounds[k]) {
        for (size_t n : {p.first, p.second}) by_node[nodes[n].name].problems.push_back(run.DeadlineText());
      }
      continue;
    }
    run.Progress(std::string(kCheck) + ": round " + std::to_string(k + 1) + " of " + std::to_string(rounds.size()) +
                 " (" + std::to_string(rounds[k].size()) + " pairs, " + std::to_string(seconds) + " s)");
    const std::vector<IbPairOutputs> outputs = RunIbWriteBwRound(run, nodes, rounds[k], seconds, units);
    for (size_t p = 0; p < rounds[k].size(); ++p) {
      Record(by_node, nodes[rounds[k][p].first], nodes[rounds[k][p].second], outputs[p]);
    }
  }
  for (CheckResult& result : PerNode(Judged(run, nodes, by_node))) run.Add(std::move(result));
}

const CheckRegistration kIbWriteBwPeers({.name = kCheck,
                                         .scope = kNode,
                                         .summary = "ib_write_bw between ring neighbours for the soak's time, each node's better pair against the floor and the peers' median",
                                         .rank = 305,
                                         .requirements = {InfinibandPorts()},
                                         .prerequisites = {{"ib.ports"}},
                                         .probes = {&kIbWriteBwInstalled},
                                         .cluster_phase = {.run = RunPhase},
                                         .variables = R"yaml(
validate_ib_write_bw_outlier_percent:
  default: 10
  type: number
  minimum: 0
  maximum: 100
  description: "acceptance: a node whose better ib_write_bw pair is slower than its peers' median by more than this fails ib.write_bw_peers"
)yaml",
                                         .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
