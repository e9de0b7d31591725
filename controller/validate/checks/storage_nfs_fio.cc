// storage.nfs_fio (acceptance): fio's sequential write, then read, through
// each NFS export a selected node mounts (nfs_mounts and
// nfs_external_mounts: the inventory's NFS view), with fio's nfs engine
// (libnfs in user space: no kernel mount needed), at the address and NFS
// version nfs.export uses. One round per export, every node that mounts it
// at once (they share the server, as jobs do); the readings are judged
// against the floors and the median of the nodes that mount the same
// export. fio's nfs engine cannot remove a file, nor can libnfs's tools:
// each node writes one file per export, the same name every run
// (<export>/.clusterctl-validate/fio-<host>, rewritten in place), so
// nothing accumulates. Debian 12's fio (3.33) has no nfs engine (Debian
// 13's 3.39 has): a node whose fio says so is not applicable, said with
// its version, never a pass.
//
// One job request in flight at a time (--iodepth=1), of up to 8 MiB that
// libnfs sends as parallel RPCs of at most 1 MiB: fio 3.39's nfs engine
// does not wait for its requests when the job ends (its getevents ignores
// the minimum fio asks for), so at a deeper queue the job is torn down
// with requests in flight, libnfs 5.0.2's umount fails them (-14, EFAULT)
// and, when a 1 MiB READ reply was half received, reads the portmapper's
// answer as the rest of it and waits forever: the job never ends and fio
// prints no report (9 of 32 reads by hand on the testbed, no write:
// docs/validation.md). The engine waits when its queue is full, so a
// queue of one is never left in flight.
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/fio.h"
#include "controller/validate/checks/nfs_url.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "storage.nfs_fio";

const ProbeSpec kVersion{
    .id = "fio --version", .commands = {{"/usr/bin/fio", "--version"}}, .timeout_s = 10, .executable = "/usr/bin/fio"};
// Exit 0 with the engine's options (nfs_url) where fio has it; "IO engine nfs not found" where not.
const ProbeSpec kNfsEngine{
    .id = "fio --enghelp=nfs", .commands = {{"/usr/bin/fio", "--enghelp=nfs"}}, .timeout_s = 10, .executable = "/usr/bin/fio"};

struct Job {
  const char* rw;              // "write" or "read": fio's --rw and the section of its report
  const char* floor_variable;  // MB/s
};
constexpr Job kJobs[] = {{"write", "validate_nfs_fio_write_min_mbps"}, {"read", "validate_nfs_fio_read_min_mbps"}};

// One node's file in one export: the export as it mounts it (server:export,
// the readings' part: its peers are the nodes that mount the same one) and
// the engine's URL (the export's validation directory).
struct Target {
  std::string node;
  std::string source;
  std::string url;
};

// "3.33" from fio --version's "fio-3.33"; empty when it did not say.
std::string FioVersion(const NodeView& view) {
  const ToolOutput& out = view.node.Output(kVersion.id);
  const std::string text(Trim(out.out));
  if (!out.Succeeded() || text.rfind("fio-", 0) != 0) return "";
  return Printable(text.substr(4), 40);
}

// Why `view`'s node cannot measure through NFS: fio missing (a failure),
// its fio without the nfs engine (not applicable), or no telling (a failure).
std::optional<CheckResult> Unmeasurable(const NodeView& view) {
  const std::string& node = view.host();
  if (!view.node.Output(FioInstalledProbe().id).Succeeded()) return Fail(kCheck, kNode, node, NotInstalled("fio", node), {}, "unknown");
  const ToolOutput& help = view.node.Output(kNfsEngine.id);
  if (help.Succeeded() && help.out.find("nfs_url") != std::string::npos) return std::nullopt;
  const std::string said = help.Both();
  if (said.find("engine nfs not found") != std::string::npos || said.find("engine nfs not loadable") != std::string::npos) {
    const std::string version = FioVersion(view);
    return Skip(kCheck, kNode, node, "not applicable: fio " + (version.empty() ? "" : version + " ") + "has no libnfs engine (Debian 13's has)");
  }
  return Fail(kCheck, kNode, node, "cannot tell whether fio has its nfs engine on " + node + " (fio --enghelp=nfs: " +
                                       ExitDescription(help) + ")", TailLines(said), "unknown");
}

// The targets to measure, in the selection's order; every other node gets its result here.
std::vector<Target> Plan(ClusterRun& run) {
  const Result<nlohmann::json> nfs = run.NfsView();
  std::vector<Target> targets;
  for (const std::string& node : MeasurableNodes(run, kCheck)) {
    if (!nfs.ok()) {
      run.Add(Fail(kCheck, kNode, node, "not checked: the inventory's NFS settings: " + nfs.status().message(), {}, "unknown"));
      continue;
    }
    const nlohmann::json& per_host = (*nfs)["per_host"];
    if (!per_host.contains(node) || !per_host[node].contains("mounts") || per_host[node]["mounts"].empty()) {
      run.Add(Skip(kCheck, kNode, node, node + " has no nfs_mounts or nfs_external_mounts"));
      continue;
    }
    if (std::optional<CheckResult> why = Unmeasurable(run.View(node))) {
      run.Add(std::move(*why));
      continue;
    }
    std::set<std::string> sources;
    for (const nlohmann::json& mount : per_host[node]["mounts"]) {
      const std::string source = mount["source"].get<std::string>();
      if (sources.insert(source).second) targets.push_back({node, source, NfsValidateUrl(mount, per_host, "")});
    }
  }
  return targets;
}

// The job's block in MiB: the largest of 8, 4, 2 and 1 that divides the
// file, so every block lies within it (1 always does).
long long BlockMib(long long size_mib) {
  long long block = 8;
  while (size_mib % block != 0) block /= 2;
  return block;
}

Argv JobArgv(const NodeView& view, const Target& target, const Job& job) {
  const long long size = IntegerVariable(view.vars, "validate_nfs_fio_size_mib").value_or(1024);
  return FioArgv("fio-" + target.node, job.rw, size, BlockMib(size), MeasureSeconds(view),
                 {"--ioengine=nfs", "--nfs_url=" + target.url, "--iodepth=1"});
}

// One export's round: each node that mounts it writes, then reads, its file; all at once.
void RunRound(ClusterRun& run, const std::string& source, const std::vector<const Target*>& round, FioReadings& readings) {
  const int seconds = MeasureSeconds(run.View(round.front()->node));
  if (run.SecondsLeft() <= 2 * seconds + 30) {
    for (const Target* t : round) readings.NotMeasured(t->node, source + " write", run.DeadlineText());
    return;
  }
  run.Progress(std::string(kCheck) + ": write then read through " + source + " on " + std::to_string(round.size()) +
               " nodes (" + std::to_string(seconds) + " s each)");
  std::vector<HostCommand> commands;  // per node: write, read
  for (const Target* t : round) {
    const NodeView view = run.View(t->node);
    for (const Job& job : kJobs) commands.push_back({.host = t->node, .argv = JobArgv(view, *t, job), .timeout_s = MeasureSeconds(view) + 60});
  }
  const std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  for (size_t n = 0; n < round.size(); ++n) {
    for (size_t j = 0; j < 2; ++j) {
      readings.Add(run.View(round[n]->node), source + " " + kJobs[j].rw, kJobs[j].rw, outputs[2 * n + j],
                   kJobs[j].floor_variable, "validate_nfs_fio_outlier_percent");
    }
  }
}

void RunPhase(ClusterRun& run) {
  const std::vector<Target> targets = Plan(run);
  std::vector<std::string> sources;  // in the order first met
  for (const Target& t : targets) {
    if (std::find(sources.begin(), sources.end(), t.source) == sources.end()) sources.push_back(t.source);
  }
  FioReadings readings(kCheck);
  for (const std::string& source : sources) {
    std::vector<const Target*> round;
    for (const Target& t : targets) {
      if (t.source == source) round.push_back(&t);
    }
    RunRound(run, source, round, readings);
  }
  for (CheckResult& r : readings.Results()) run.Add(std::move(r));
}

const CheckRegistration kStorageNfsFio({.name = kCheck,
                                        .scope = kNode,
                                        .summary = "fio's sequential write and read through each NFS export the node mounts (fio's nfs engine), against the floors and the median of the nodes that mount it",
                                        .rank = 312,
                                        .probes = {&FioInstalledProbe(), &kVersion, &kNfsEngine},
                                        .cluster_phase = {.run = RunPhase},
                                        .variables = R"yaml(
validate_nfs_fio_size_mib:
  default: 1024
  type: integer
  minimum: 1
  description: "acceptance: the size of storage.nfs_fio's file in each export in MiB (one per node and export, rewritten every run)"
validate_nfs_fio_write_min_mbps:
  default: 50
  type: number
  minimum: 0
  description: "acceptance: storage.nfs_fio's floor for sequential writes through an NFS export, in MB/s"
validate_nfs_fio_read_min_mbps:
  default: 50
  type: number
  minimum: 0
  description: "acceptance: storage.nfs_fio's floor for sequential reads through an NFS export, in MB/s"
validate_nfs_fio_outlier_percent:
  default: 25
  type: number
  minimum: 0
  maximum: 100
  description: "acceptance: a node reading or writing through an export slower than the median of the nodes that mount it by more than this fails storage.nfs_fio"
)yaml",
                                        .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
