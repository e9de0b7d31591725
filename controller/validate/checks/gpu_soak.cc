// gpu.soak (acceptance): a sustained GPU load on every selected GPU node at
// once for validate_acceptance_seconds (--duration), watched. The load is
// nccl-tests' all_reduce_perf over all the node's GPUs at
// validate_nccl_max_bytes, run cycle after cycle (-N 0: until stopped), in a
// transient unit straight on the node (systemd-run; RuntimeMaxSec ends it
// well after the soak whatever happens to this run); acceptance runs
// before users get the node, so no Slurm job holds the GPUs. Every
// validate_gpu_soak_sample_seconds nvidia-smi -q -d PERFORMANCE is read: a
// GPU with a slowdown reason active in any sample (the reasons gpu.clocks
// judges: HW slowdown, HW thermal, HW power brake, SW thermal; verdicts.h)
// fails the node, naming the GPU, the reasons and in how many samples. Any
// Xid or fatal driver message in the kernel log during the window
// (journalctl --after-cursor the cursor read before the load, --grep NVRM)
// fails it too, whatever validate_gpu_xid_ignore says: only the soak's own
// load ran. No reading, no pass: a load that did not start or stopped
// early, a sample nvidia-smi did not give or that is SIMULATED (the
// testbed's), an empty kernel log, or the deadline: a failure.
#include <unistd.h>

#include <map>

#include "common/strings.h"
#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/gpu_jobs.h"
#include "controller/validate/nvrm_log.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "gpu.soak";
constexpr const char* kCursorMark = "-- cursor: ";

int SampleSeconds(const NodeView& view) {
  return static_cast<int>(IntegerVariable(view.vars, "validate_gpu_soak_sample_seconds").value_or(10));
}

// The nodes soaked: those the check can measure (GPUs on the PCI bus,
// gpu.driver passed: MeasurableNodes) with nccl-tests; one without fails.
std::vector<std::string> SoakNodes(ClusterRun& run) {
  std::vector<std::string> nodes;
  for (const std::string& node : MeasurableNodes(run, kCheck)) {
    const NodeView view = run.View(node);
    if (!HasNcclTests(view.node)) {
      run.Add(Fail(kCheck, kNode, node, "nccl-tests is not installed on " + node + " (" + NcclTestsDir(view.vars) +
                                            "/all_reduce_perf; the nccl-tests role installs it)", {}, "unknown"));
    } else {
      nodes.push_back(node);
    }
  }
  return nodes;
}

// What was read on one node.
struct Soak {
  std::string node;
  std::string unit;
  std::string cursor;   // the kernel log's before the load; "": there is no kernel log
  std::string problem;  // why the load did not run; "": it did
  std::vector<Result<ToolOutput>> samples;
  Result<ToolOutput> state = ToolOutput{}, journal = ToolOutput{}, window = ToolOutput{};
};

// journalctl --show-cursor's cursor (its last line), "" when it printed none (an empty log).
std::string CursorOf(const Result<ToolOutput>& out) {
  if (!out.ok() || !out->Succeeded()) return "";
  std::string cursor;
  for (const std::string& line : Split(out->out, '\n')) {
    if (line.rfind(kCursorMark, 0) == 0) cursor = line.substr(std::string(kCursorMark).size());
  }
  return cursor;
}

Argv LoadArgv(const NodeView& view, const std::string& unit, int seconds) {
  const std::string bytes = StringVariable(view.vars, "validate_nccl_max_bytes").value_or("1G");
  return {"systemd-run", "--unit=" + unit, "--collect", "-p", "RuntimeMaxSec=" + std::to_string(2 * seconds + 120),
          NcclTestsDir(view.vars) + "/all_reduce_perf", "-b", bytes, "-e", bytes, "-g",
          std::to_string(ExpectedGpus(view)), "-N", "0"};
}

// Reads each node's kernel log cursor, then starts its load.
void Start(ClusterRun& run, std::vector<Soak>& soaks, int seconds) {
  std::vector<HostCommand> commands;
  for (size_t n = 0; n < soaks.size(); ++n) {
    soaks[n].unit = "clusterctl-soak-" + std::to_string(::getpid()) + "-" + std::to_string(n);
    commands.push_back({.host = soaks[n].node, .argv = {"journalctl", "-q", "-k", "-b", "0", "-n", "1", "-o", "short-precise",
                                                        "--no-pager", "--show-cursor"}, .timeout_s = 30});
    commands.push_back({.host = soaks[n].node, .argv = LoadArgv(run.View(soaks[n].node), soaks[n].unit, seconds), .timeout_s = 30});
  }
  const std::vector<Result<ToolOutput>> out = run.RunCommands(commands);
  for (size_t n = 0; n < soaks.size(); ++n) {
    soaks[n].cursor = CursorOf(out[2 * n]);
    const Result<ToolOutput>& started = out[2 * n + 1];
    if (!started.ok()) soaks[n].problem = started.status().message();
    else if (!started->Succeeded()) soaks[n].problem = "could not start the load (systemd-run: " + ExitDescription(*started) + "): " + Printable(Trim(started->Both()), 200);
  }
}

// Samples every running load's node `rounds` times, fewer when the deadline comes first.
void Sample(ClusterRun& run, std::vector<Soak>& soaks, int rounds, int every) {
  for (int r = 0; r < rounds; ++r) {
    if (run.SecondsLeft() <= every + 30) return;
    run.Progress(std::string(kCheck) + ": sample " + std::to_string(r + 1) + " of " + std::to_string(rounds));
    std::vector<HostCommand> commands;
    std::vector<Soak*> sampled;
    for (Soak& s : soaks) {
      if (!s.problem.empty()) continue;
      commands.push_back({.host = s.node, .argv = {"sleep", std::to_string(every)}, .timeout_s = every + 10});
      commands.push_back({.host = s.node, .argv = {"nvidia-smi", "-q", "-d", "PERFORMANCE"}, .timeout_s = 60});
      sampled.push_back(&s);
    }
    const std::vector<Result<ToolOutput>> out = run.RunCommands(commands);
    for (size_t k = 0; k < sampled.size(); ++k) sampled[k]->samples.push_back(out[2 * k + 1]);
  }
}

// Whether each load still runs, its last lines, stopping it, and the
// driver's log lines since the cursor (where there is one).
void Finish(ClusterRun& run, std::vector<Soak>& soaks) {
  std::vector<HostCommand> commands;
  std::vector<Result<ToolOutput>*> into;  // where each command's output goes (null: not kept)
  auto add = [&](const Soak& s, Argv argv, int timeout_s, Result<ToolOutput>* field) {
    commands.push_back({.host = s.node, .argv = std::move(argv), .timeout_s = timeout_s});
    into.push_back(field);
  };
  for (Soak& s : soaks) {
    if (!s.problem.empty()) continue;
    add(s, {"systemctl", "is-active", s.unit}, 15, &s.state);
    add(s, {"journalctl", "-q", "-u", s.unit, "-n", "12", "-o", "cat", "--no-pager"}, 30, &s.journal);
    add(s, {"systemctl", "stop", s.unit}, 60, nullptr);
    if (s.cursor.empty()) continue;
    add(s, {"journalctl", "-q", "-k", "-o", "short-precise", "--no-pager", "--after-cursor", s.cursor, "--grep", "NVRM"}, 60,
        &s.window);
  }
  std::vector<Result<ToolOutput>> out = run.RunCommands(commands);
  for (size_t k = 0; k < out.size(); ++k) {
    if (into[k] != nullptr) *into[k] = std::move(out[k]);
  }
}

// Per GPU (bus id), the samples in which a slowdown reason was active and which.
struct Throttle {
  int samples = 0;
  std::vector<std::string> reasons;
  std::vector<std::string> first_lines;
};

// The samples' slowdowns by GPU, or why the samples are no reading.
Result<std::map<std::string, Throttle>> ReadSamples(const Soak& s) {
  std::map<std::string, Throttle> by_gpu;
  for (size_t i = 0; i < s.samples.size(); ++i) {
    const Result<ToolOutput>& out = s.samples[i];
    const std::string which = "sample " + std::to_string(i + 1);
    if (!out.ok()) return Status::Unavailable(which + ": " + out.status().message());
    if (out->Both().find("SIMULATED") != std::string::npos) {
      return Status::Unavailable("nvidia-smi on " + s.node + " is SIMULATED (the testbed's placeholder)");
    }
    if (!out->Succeeded()) return Status::Unavailable(which + ": nvidia-smi -q -d PERFORMANCE " + ExitDescription(*out));
    Result<NvidiaSmiReport> report = ParseNvidiaSmiQuery(out->out);
    if (!report.ok()) return Status::Unavailable(which + ": " + report.status().message());
    if (report->gpus.empty()) return Status::Unavailable(which + ": nvidia-smi describes no GPU");
    for (const GpuStatus& g : report->gpus) {
      const GpuSlowdown slow = SlowdownOf(g);
      if (!slow.unknown.empty()) return Status::Unavailable(which + ": GPU " + g.bus_id + ": " + Join(slow.unknown, ", "));
      if (slow.active.empty()) continue;
      Throttle& t = by_gpu[g.bus_id];
      if (t.samples++ == 0) t.first_lines = slow.active_lines;
      for (const std::string& reason : slow.active) {
        if (std::find(t.reasons.begin(), t.reasons.end(), reason) == t.reasons.end()) t.reasons.push_back(reason);
      }
    }
  }
  return by_gpu;
}

// A failure when the load did not run the whole soak.
std::optional<CheckResult> LoadStopped(const Soak& s) {
  if (!s.problem.empty()) return Fail(kCheck, kNode, s.node, s.problem, {}, "unknown");
  if (!s.state.ok()) return Fail(kCheck, kNode, s.node, s.state.status().message(), {}, "unknown");
  const std::string state(Trim(s.state->out));
  if (state == "active") return std::nullopt;
  std::vector<std::string> evidence = s.journal.ok() ? TailLines(s.journal->Both()) : std::vector<std::string>{};
  return Fail(kCheck, kNode, s.node,
              "no reading: the load (all_reduce_perf) stopped before the soak's end (its unit is " +
                  (state.empty() ? ExitDescription(*s.state) : Printable(state, 40)) + ")",
              std::move(evidence), "unknown");
}

CheckResult Judge(const Soak& s, int rounds, const std::string& deadline) {
  if (auto stopped = LoadStopped(s)) return *stopped;
  if (static_cast<int>(s.samples.size()) < rounds) {
    return Fail(kCheck, kNode, s.node, "the soak was cut after " + std::to_string(s.samples.size()) + " of " +
                                           std::to_string(rounds) + " samples: " + deadline, {}, "unknown");
  }
  const Result<std::map<std::string, Throttle>> throttled = ReadSamples(s);
  if (!throttled.ok()) return Fail(kCheck, kNode, s.node, "no reading: " + throttled.status().message(), {}, "unknown");
  if (s.cursor.empty()) {
    return Fail(kCheck, kNode, s.node, "no reading: the kernel log is empty or unreadable on " + s.node +
                                           ", so Xid errors during the soak cannot be ruled out", {}, "unknown");
  }
  if (!s.window.ok()) return Fail(kCheck, kNode, s.node, s.window.status().message(), {}, "unknown");
  if (!JournalGrepRead(*s.window)) return ToolFailed(kCheck, kNode, s.node, "journalctl -k --after-cursor", *s.window);
  const DriverErrors xids = FindDriverErrors(ReadNvrmLog(s.window->out), {});
  std::vector<std::string> problems, evidence;
  for (const auto& [gpu, t] : *throttled) {
    problems.push_back("GPU " + gpu + ": " + Join(t.reasons, ", ") + " active in " + std::to_string(t.samples) + " of " +
                       std::to_string(s.samples.size()) + " samples");
    for (const std::string& line : t.first_lines) evidence.push_back("GPU " + gpu + ": " + std::string(Trim(line)));
  }
  if (!xids.found.empty()) problems.push_back("the NVIDIA driver logged " + Join(xids.found, ", ") + " during the soak");
  evidence.insert(evidence.end(), xids.evidence.begin(), xids.evidence.end());
  if (s.window->truncated && xids.found.empty()) problems.push_back("no reading: the driver's log during the soak was cut at the agent's output limit");
  const std::string threshold = std::string(kSlowdownThreshold) + "; no Xid";
  const std::string measured = std::to_string(s.samples.size()) + " samples";
  if (!problems.empty()) return Fail(kCheck, kNode, s.node, Join(problems, "; "), std::move(evidence), measured, threshold);
  return Pass(kCheck, kNode, s.node, measured, threshold, "no slowdown and no Xid under load");
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = SoakNodes(run);
  if (nodes.empty()) return;
  const NodeView first = run.View(nodes.front());
  const int seconds = MeasureSeconds(first);
  const int every = std::min(SampleSeconds(first), seconds);
  const int rounds = std::max(1, seconds / every);
  if (run.SecondsLeft() <= seconds + 60) {
    for (const std::string& node : nodes) run.Add(Fail(kCheck, kNode, node, run.DeadlineText(), {}, "unknown"));
    return;
  }
  std::vector<Soak> soaks;
  for (const std::string& node : nodes) soaks.push_back({.node = node});
  run.Progress(std::string(kCheck) + ": all_reduce_perf for " + std::to_string(rounds * every) + " s on " +
               std::to_string(nodes.size()) + " nodes, nvidia-smi every " + std::to_string(every) + " s");
  Start(run, soaks, seconds);
  Sample(run, soaks, rounds, every);
  Finish(run, soaks);
  for (const Soak& s : soaks) run.Add(Judge(s, rounds, run.DeadlineText()));
}

const CheckRegistration kGpuSoak({.name = kCheck,
                                  .scope = kNode,
                                  .summary = "all_reduce_perf in a loop for the soak's time: no GPU slowdown reason active and no Xid during it",
                                  .rank = 325,
                                  .requirements = {GpusOnPciBus()},
                                  .prerequisites = {DriverLoaded()},
                                  .probes = {&NcclTestsProbe()},
                                  .cluster_phase = {.run = RunPhase},
                                  .variables = R"yaml(
validate_gpu_soak_sample_seconds:
  default: 10
  type: integer
  minimum: 1
  description: "acceptance: how often gpu.soak reads nvidia-smi -q -d PERFORMANCE during its load (seconds)"
)yaml",
                                  .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
