// storage.fio (acceptance): fio's sequential write, then read, of a file in
// each selected node's scratch directory (validate_fio_directory), 1 MiB
// blocks, direct I/O unless validate_fio_direct is false (a tmpfs refuses
// it), validate_acceptance_seconds each, every node at once (each measures
// its own disk); the file is removed after. The readings (fio's JSON:
// jobs[0].write/read.bw_bytes) are judged against the floors and the peers'
// median (peer_judgement.h): a disk at a third of its peers' speed fails.
#include <unistd.h>

#include "controller/validate/checks/common.h"
#include "controller/validate/checks/fio.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "storage.fio";

struct Job {
  const char* rw;              // "write" or "read": fio's --rw and the section of its report
  const char* floor_variable;  // MB/s
};
constexpr Job kJobs[] = {{"write", "validate_fio_write_min_mbps"}, {"read", "validate_fio_read_min_mbps"}};

std::string FileOf(const NodeView& view) {
  return StringVariable(view.vars, "validate_fio_directory").value_or("/var/tmp") + "/clusterctl-fio-" +
         std::to_string(::getpid()) + ".dat";
}

Argv JobArgv(const NodeView& view, const Job& job) {
  const bool direct = BoolVariable(view.vars, "validate_fio_direct").value_or(true);
  const long long size = IntegerVariable(view.vars, "validate_fio_size_mib").value_or(1024);
  return FioArgv(FileOf(view), job.rw, size, 1, MeasureSeconds(view), {std::string("--direct=") + (direct ? "1" : "0")});
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = MeasuredNodes(run, kCheck, FioInstalledProbe(), "fio");
  if (nodes.empty()) return;
  const int seconds = MeasureSeconds(run.View(nodes.front()));
  FioReadings readings(kCheck);
  if (run.SecondsLeft() <= 2 * seconds + 30) {
    for (const std::string& node : nodes) readings.NotMeasured(node, "write", run.DeadlineText());
    for (CheckResult& r : readings.Results()) run.Add(std::move(r));
    return;
  }
  run.Progress(std::string(kCheck) + ": write then read on " + std::to_string(nodes.size()) + " nodes (" +
               std::to_string(seconds) + " s each)");
  std::vector<HostCommand> commands;  // per node: write, read, remove
  for (const std::string& node : nodes) {
    const NodeView view = run.View(node);
    for (const Job& job : kJobs) commands.push_back({.host = node, .argv = JobArgv(view, job), .timeout_s = MeasureSeconds(view) + 120});
    commands.push_back({.host = node, .argv = {"rm", "-f", "--", FileOf(view)}, .timeout_s = 30});
  }
  const std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  for (size_t n = 0; n < nodes.size(); ++n) {
    const NodeView view = run.View(nodes[n]);
    for (size_t j = 0; j < 2; ++j) {
      readings.Add(view, kJobs[j].rw, kJobs[j].rw, outputs[3 * n + j], kJobs[j].floor_variable, "validate_fio_outlier_percent");
    }
  }
  for (CheckResult& r : readings.Results()) run.Add(std::move(r));
}

const CheckRegistration kStorageFio({.name = kCheck,
                                     .scope = kNode,
                                     .summary = "fio's sequential write and read in the scratch directory, against the floors and the peers' median",
                                     .rank = 310,
                                     .probes = {&FioInstalledProbe()},
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
