// ib.write_bw: perftest's ib_write_bw between ring neighbours among the
// selected nodes whose ib.ports passed and that have perftest, in the rounds
// of pair_schedule.h (no node in two pairs at once), for 5 s each (ib_pairs.h:
// the server a transient unit on the node's first expected port); the client connects to the server's ib*
// interface address from the inventory, else its management address. The
// verdict on the client's output: checks.h's EvaluateIbWriteBw.
#include <algorithm>

#include "controller/validate/checks/common.h"
#include "controller/validate/checks/ib_pairs.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/pair_schedule.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "ib.write_bw";
constexpr CheckScope kPair = CheckScope::kPair;
constexpr int kRoundSeconds = 10;  // a round needs at least this long: fewer left, its pairs fail as not run
constexpr int kSeconds = 5;         // each pair's ib_write_bw -D

// The selected nodes whose ib.ports passed and that have perftest, in
// --limit's order (ib_pairs.h); an unreachable one fails (its adapters are
// unknown: no reading, no pass).
std::vector<IbPairNode> Candidates(ClusterRun& run) {
  std::vector<IbPairNode> nodes;
  for (const ClusterRun::ProbedHost& h : run.ProbedHosts()) {
    if (!h.selected) continue;
    if (!h.reached) {
      run.Add(Fail(kCheck, kPair, h.name, "not checked: " + h.name + " is unreachable (" + h.unreachable + ")", {}, "unknown"));
      continue;
    }
    if (std::optional<IbPairNode> node = IbPairNodeOf(run, h.name)) nodes.push_back(std::move(*node));
  }
  return nodes;
}

// One pair's verdict: the server's start, then the client's output, at the
// client's limits and the slower port's line rate.
CheckResult Judge(const IbPairNode& server, const IbPairNode& client, const Result<ToolOutput>& started,
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

void RunRound(ClusterRun& run, const std::vector<IbPairNode>& nodes, const std::vector<NodePair>& round, int& units) {
  const std::vector<IbPairOutputs> outputs = RunIbWriteBwRound(run, nodes, round, kSeconds, units);
  for (size_t k = 0; k < round.size(); ++k) {
    run.Add(Judge(nodes[round[k].first], nodes[round[k].second], outputs[k].started, outputs[k].measured));
  }
}

void RunPhase(ClusterRun& run) {
  const std::vector<IbPairNode> nodes = Candidates(run);
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
                                    .probes = {&kIbWriteBwInstalled},
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
