// node.hpcc (acceptance): CPU and memory by HPC Challenge (Debian's `hpcc`),
// one process on every selected node at once: HPL at an order sized from
// the node's memory (validate_hpcc_memory_percent of facts memory.total_mib,
// or validate_hpcc_n) and STREAM's triad. In a fresh directory per run
// (hpcc reads hpccinf.txt from its working directory and appends to
// hpccoutf.txt): mkdir, the input on stdin to tee, hpcc under env -C, cat,
// rm. Both readings are judged against their floors and the peers' median
// (peer_judgement.h): a node with a slow CPU or a memory channel short
// fails, named. One process measures one core and its share of the memory
// bandwidth, not the whole node (docs/validation.md says so).
#include <unistd.h>

#include "common/strings.h"
#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/hpcc.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "node.hpcc";
constexpr int kBlock = 80;  // HPL's NB

const ProbeSpec kInstalled{.id = "hpcc installed", .commands = {{"test", "-x", "/usr/bin/hpcc"}}, .timeout_s = 10};

std::string DirOf(const NodeView& view) {
  return StringVariable(view.vars, "validate_hpcc_directory").value_or("/var/tmp") + "/clusterctl-hpcc-" +
         std::to_string(::getpid());
}

long long OrderOf(const NodeView& view) {
  if (auto n = IntegerVariable(view.vars, "validate_hpcc_n")) return std::max<long long>(*n, kBlock);
  const double percent = NumberVariable(view.vars, "validate_hpcc_memory_percent").value_or(5);
  const nlohmann::json& facts = view.node.facts;
  const double mib = facts.contains("memory") && facts["memory"].is_object() && facts["memory"].contains("total_mib") &&
                             facts["memory"]["total_mib"].is_number()
                         ? facts["memory"]["total_mib"].get<double>()
                         : 1024;
  return HpccOrderFor(mib, percent, kBlock);
}

// The node's five commands: mkdir, write the input, hpcc, read the output, clean up.
std::vector<HostCommand> CommandsOf(const std::string& node, const NodeView& view) {
  const std::string dir = DirOf(view);
  const int timeout = static_cast<int>(IntegerVariable(view.vars, "validate_hpcc_timeout_s").value_or(3600));
  return {{.host = node, .argv = {"mkdir", "-p", "--", dir}, .timeout_s = 30},
          {.host = node, .argv = {"tee", "--", dir + "/hpccinf.txt"}, .timeout_s = 30, .input = HpccInput(OrderOf(view), kBlock)},
          // One process, an MPI singleton (no mpirun): Open MPI refuses root without both
          // variables, and needs no transport but to itself.
          {.host = node, .argv = {"env", "-C", dir, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                  "OMPI_MCA_btl=self", "/usr/bin/hpcc"}, .timeout_s = timeout},
          {.host = node, .argv = {"cat", "--", dir + "/hpccoutf.txt"}, .timeout_s = 30},
          {.host = node, .argv = {"rm", "-rf", "--", dir}, .timeout_s = 30}};
}

// The node's summary, or why there is none (hpcc's own failure first).
Result<HpccSummary> SummaryOf(const std::vector<Result<ToolOutput>>& outputs, size_t first) {
  for (size_t i = first; i < first + 3; ++i) {
    if (!outputs[i].ok()) return outputs[i].status();
    if (!outputs[i]->Succeeded()) {
      return Status::InvalidArgument((i == first + 2 ? std::string("hpcc ") : "preparing hpcc's directory: ") +
                                     ExitDescription(*outputs[i]) + ": " + Printable(Trim(outputs[i]->Both()), 200));
    }
  }
  if (!outputs[first + 3].ok()) return outputs[first + 3].status();
  return ParseHpccSummary(outputs[first + 3]->out);
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = MeasuredNodes(run, kCheck, kInstalled, "hpcc");
  if (nodes.empty()) return;
  std::vector<HostCommand> commands;
  for (const std::string& node : nodes) {
    for (HostCommand& c : CommandsOf(node, run.View(node))) commands.push_back(std::move(c));
  }
  run.Progress(std::string(kCheck) + ": HPL (N " +
               std::to_string(OrderOf(run.View(nodes.front()))) + " on " + nodes.front() + ") and STREAM on " +
               std::to_string(nodes.size()) + " nodes");
  const std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  std::vector<PartResult> parts;
  std::vector<PeerReading> readings;
  std::vector<std::pair<std::string, std::string>> keys;  // node, part of each reading
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Result<HpccSummary> summary = SummaryOf(outputs, 5 * n);
    if (!summary.ok()) {
      parts.push_back({nodes[n], "hpl", Fail(kCheck, kNode, nodes[n], summary.status().message(), {}, "unknown")});
      continue;
    }
    const NodeView view = run.View(nodes[n]);
    readings.push_back(ReadingOf(view, "hpl", summary->hpl_gflops, "validate_hpcc_hpl_min_gflops", "validate_hpcc_outlier_percent"));
    keys.emplace_back(nodes[n], "hpl");
    readings.push_back(ReadingOf(view, "stream", summary->stream_triad_gbs, "validate_hpcc_stream_min_gbs", "validate_hpcc_outlier_percent"));
    keys.emplace_back(nodes[n], "stream");
  }
  std::vector<CheckResult> hpl, stream;
  std::vector<PeerReading> hpl_readings, stream_readings;
  for (size_t k = 0; k < readings.size(); ++k) (keys[k].second == "hpl" ? hpl_readings : stream_readings).push_back(readings[k]);
  hpl = JudgeAgainstPeers({kCheck, kNode, "GFlop/s"}, hpl_readings);
  stream = JudgeAgainstPeers({kCheck, kNode, "GB/s"}, stream_readings);
  size_t h = 0, s = 0;
  for (const auto& [node, part] : keys) parts.push_back({node, part, std::move(part == "hpl" ? hpl[h++] : stream[s++])});
  for (CheckResult& r : PerNode(parts)) run.Add(std::move(r));
}

const CheckRegistration kNodeHpcc({.name = kCheck,
                                   .scope = kNode,
                                   .summary = "HPL and STREAM (hpcc) on every node, against the floors and the peers' median",
                                   .rank = 315,
                                   .probes = {&kInstalled},
                                   .cluster_phase = {.run = RunPhase},
                                   .variables = R"yaml(
validate_hpcc_n:
  default: null
  type: integer
  minimum: 80
  description: "acceptance: HPL's order for node.hpcc (null: from the node's memory, validate_hpcc_memory_percent)"
validate_hpcc_memory_percent:
  default: 5
  type: number
  minimum: 0
  maximum: 80
  description: "acceptance: the share of a node's memory node.hpcc's HPL matrix takes when validate_hpcc_n is null"
validate_hpcc_directory:
  default: /var/tmp
  type: string
  description: "acceptance: where node.hpcc makes its working directory (removed after)"
validate_hpcc_timeout_s:
  default: 3600
  type: integer
  minimum: 10
  description: "acceptance: how long node.hpcc waits for hpcc on a node (seconds)"
validate_hpcc_hpl_min_gflops:
  default: null
  type: number
  minimum: 0
  description: "acceptance: node.hpcc's floor for HPL in GFlop/s (null: only the outlier rule)"
validate_hpcc_stream_min_gbs:
  default: null
  type: number
  minimum: 0
  description: "acceptance: node.hpcc's floor for STREAM's triad in GB/s (null: only the outlier rule)"
validate_hpcc_outlier_percent:
  default: 20
  type: number
  minimum: 0
  maximum: 100
  description: "acceptance: a node slower than its peers' median by more than this (HPL or STREAM) fails node.hpcc"
)yaml",
                                   .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
