// storage.fio (acceptance): fio's sequential write, then read, of a file in
// each selected node's scratch directory (validate_fio_directory), 1 MiB
// blocks, direct I/O unless validate_fio_direct is false (a tmpfs refuses
// it), validate_acceptance_seconds each, every node at once (each measures
// its own disk); the file is removed after. The readings (fio's JSON:
// jobs[0].write/read.bw_bytes) are judged against the floors and the peers'
// median (peer_judgement.h): a disk at a third of its peers' speed fails.
#include <unistd.h>

#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "storage.fio";
constexpr double kMB = 1e6;

const ProbeSpec kInstalled{.id = "fio installed", .commands = {{"test", "-x", "/usr/bin/fio"}}, .timeout_s = 10};

struct Job {
  const char* rw;              // "write" or "read": fio's --rw and the section of its report
  const char* floor_variable;  // MB/s
};
constexpr Job kJobs[] = {{"write", "validate_fio_write_min_mbps"}, {"read", "validate_fio_read_min_mbps"}};

std::string FileOf(const NodeView& view) {
  return StringVariable(view.vars, "validate_fio_directory").value_or("/var/tmp") + "/clusterctl-fio-" +
         std::to_string(::getpid()) + ".dat";
}

Argv FioArgv(const NodeView& view, const Job& job) {
  const bool direct = BoolVariable(view.vars, "validate_fio_direct").value_or(true);
  const long long size = IntegerVariable(view.vars, "validate_fio_size_mib").value_or(1024);
  return {"/usr/bin/fio", "--name=clusterctl-accept", "--filename=" + FileOf(view), std::string("--rw=") + job.rw,
          "--bs=1M", "--size=" + std::to_string(size) + "M", "--runtime=" + std::to_string(MeasureSeconds(view)),
          "--time_based", std::string("--direct=") + (direct ? "1" : "0"), "--output-format=json"};
}

// fio's bandwidth of `rw` in bytes per second; its job error or no report as the problem.
// fio may print warnings before its JSON ("fio: ..."): the report starts at the first '{'.
Result<double> BytesPerSecond(const std::string& text, const std::string& rw) {
  const size_t start = text.find('{');
  const nlohmann::json doc = start == std::string::npos ? nlohmann::json()
                                                       : nlohmann::json::parse(text.substr(start), nullptr, false);
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty()) {
    return Status::InvalidArgument("fio printed no JSON report");
  }
  const nlohmann::json& job = doc["jobs"][0];
  if (job.contains("error") && job["error"].is_number() && job["error"].get<long long>() != 0) {
    return Status::InvalidArgument("fio's job failed with error " + std::to_string(job["error"].get<long long>()));
  }
  if (!job.contains(rw) || !job[rw].contains("bw_bytes") || !job[rw]["bw_bytes"].is_number()) {
    return Status::InvalidArgument("fio's report has no " + rw + ".bw_bytes");
  }
  return job[rw]["bw_bytes"].get<double>();
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = MeasuredNodes(run, kCheck, kInstalled, "fio");
  if (nodes.empty()) return;
  const int seconds = MeasureSeconds(run.View(nodes.front()));
  std::vector<PartResult> parts;
  if (run.SecondsLeft() <= 2 * seconds + 30) {
    for (const std::string& node : nodes) parts.push_back({node, "write", Fail(kCheck, kNode, node, run.DeadlineText(), {}, "unknown")});
    for (CheckResult& r : PerNode(parts)) run.Add(std::move(r));
    return;
  }
  run.Progress(std::string(kCheck) + ": write then read on " + std::to_string(nodes.size()) + " nodes (" +
               std::to_string(seconds) + " s each)");
  std::vector<HostCommand> commands;  // per node: write, read, remove
  for (const std::string& node : nodes) {
    const NodeView view = run.View(node);
    for (const Job& job : kJobs) commands.push_back({.host = node, .argv = FioArgv(view, job), .timeout_s = MeasureSeconds(view) + 120});
    commands.push_back({.host = node, .argv = {"rm", "-f", "--", FileOf(view)}, .timeout_s = 30});
  }
  const std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  std::vector<PeerReading> readings;
  std::vector<std::pair<std::string, std::string>> keys;  // node, job of each reading
  for (size_t n = 0; n < nodes.size(); ++n) {
    const NodeView view = run.View(nodes[n]);
    for (size_t j = 0; j < 2; ++j) {
      const Result<ToolOutput>& out = outputs[3 * n + j];
      Result<double> bps = out.ok() ? BytesPerSecond(out->out, kJobs[j].rw) : Result<double>(out.status());
      if (!bps.ok()) {
        parts.push_back({nodes[n], kJobs[j].rw, Fail(kCheck, kNode, nodes[n], bps.status().message(),
                                                     out.ok() ? TailLines(out->Both()) : std::vector<std::string>{}, "unknown")});
        continue;
      }
      readings.push_back(ReadingOf(view, kJobs[j].rw, *bps / kMB, kJobs[j].floor_variable, "validate_fio_outlier_percent"));
      keys.emplace_back(nodes[n], kJobs[j].rw);
    }
  }
  std::vector<CheckResult> judged = JudgeAgainstPeers({kCheck, kNode, "MB/s"}, readings);
  for (size_t k = 0; k < judged.size(); ++k) parts.push_back({keys[k].first, keys[k].second, std::move(judged[k])});
  for (CheckResult& r : PerNode(parts)) run.Add(std::move(r));
}

const CheckRegistration kStorageFio({.name = kCheck,
                                     .scope = kNode,
                                     .summary = "fio's sequential write and read in the scratch directory, against the floors and the peers' median",
                                     .rank = 310,
                                     .probes = {&kInstalled},
                                     .cluster_phase = {.run = RunPhase},
                                     .variables = R"yaml(
validate_fio_directory:
  default: /var/tmp
  type: string
  description: "acceptance: the scratch directory storage.fio writes its file in (on the disk jobs use)"
validate_fio_size_mib:
  default: 1024
  type: integer
  minimum: 1
  description: "acceptance: the size of storage.fio's file in MiB (written and read again until the time is up)"
validate_fio_direct:
  default: true
  type: boolean
  description: "acceptance: storage.fio bypasses the page cache (O_DIRECT); false where the file system refuses it (tmpfs)"
validate_fio_write_min_mbps:
  default: 50
  type: number
  minimum: 0
  description: "acceptance: storage.fio's floor for sequential writes, in MB/s"
validate_fio_read_min_mbps:
  default: 50
  type: number
  minimum: 0
  description: "acceptance: storage.fio's floor for sequential reads, in MB/s"
validate_fio_outlier_percent:
  default: 25
  type: number
  minimum: 0
  maximum: 100
  description: "acceptance: a node reading or writing slower than its peers' median by more than this fails storage.fio"
)yaml",
                                     .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
