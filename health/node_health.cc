#include "health/node_health.h"

#include <algorithm>
#include <map>

#include "common/clock.h"
#include "controller/validate/check_selection.h"

namespace clusterctl::health {
namespace {

using SteadyClock = std::chrono::steady_clock;

// The time budget is on the node's own time.
const SystemClock kMachineClock;

// A health run's node: a compute node of the Slurm cluster (slurmd runs the program).
NodeRole ComputeNode() { return NodeRole{.slurm_cluster = true, .slurm_host = true, .compute = true, .controller = false}; }

// Out of time: the reading is "timed out", so a check reading it fails as no reading.
ToolOutput OutOfBudget() {
  ToolOutput output;
  output.exit_code = -1;
  output.timed_out = true;
  output.err = "not run: the health check's time budget was spent";
  return output;
}

// A probe's reading, the way validate reads it (validation_run.cc's
// RunProbe): the first of its commands that is installed, read again after
// its settle step when not settled yet; each within what is left of the budget.
// Unlike validate it keeps no settle output (ToolOutput::settle_out): cut at
// 10 s, chrony's settle is still in its rounds then and has printed nothing.
ToolOutput ReadProbe(const ProbeSpec& probe, const NodeView& view, NodeCommands& commands, SteadyClock::time_point end) {
  auto limit = [&](int own_s) {
    auto left = std::chrono::duration_cast<std::chrono::seconds>(end - kMachineClock.Monotonic());
    return std::min(std::chrono::seconds(own_s), left);
  };
  if (!probe.executable.empty() && !commands.Executable(probe.executable)) return NotRunOutput();
  ToolOutput output = NotRunOutput();
  std::vector<Argv> alternatives = probe.CommandsFor(view);
  size_t used = 0;
  for (; used < alternatives.size(); ++used) {
    if (limit(probe.timeout_s).count() <= 0) return OutOfBudget();
    output = commands.Run(alternatives[used], limit(probe.timeout_s));
    if (output.started) break;
  }
  if (used == alternatives.size()) return output;
  if (probe.settled != nullptr && !probe.settled(output) && limit(10).count() > 0) {
    commands.Run(probe.settle, limit(std::min(10, probe.settle_timeout_s)));
    if (limit(probe.timeout_s).count() > 0) output = commands.Run(alternatives[used], limit(probe.timeout_s));
  }
  return output;
}

// Every configured check failed as not checked, for `why`.
NodeHealth NothingChecked(const HealthConfig& config, const std::string& why) {
  NodeHealth health;
  for (const std::string& check : config.checks) {
    health.results.push_back(Fail(check, CheckScope::kNode, config.node, "not checked: " + why));
  }
  return health;
}

}  // namespace

std::vector<const CheckResult*> NodeHealth::Failures() const {
  std::vector<const CheckResult*> failed;
  for (const CheckResult& r : results) {
    if (r.outcome == CheckOutcome::kFail) failed.push_back(&r);
  }
  return failed;
}

NodeHealth JudgeNode(const HealthConfig& config, nlohmann::json facts, NodeCommands& commands, std::chrono::seconds budget) {
  if (config.checks.empty()) return {};  // (an empty selection would be every check)
  // The controller checked both at deploy; a hand-edited file may not be.
  auto selection = CheckSelection::Parse(config.checks);
  if (!selection.ok()) return NothingChecked(config, selection.status().message());
  const std::set<std::string> needed = NeededChecks(*selection);

  NodeReadings readings = NodeReadings::FromFacts(config.node, std::move(facts));
  NodeView view{readings, config.vars, ComputeNode(), nullptr, nullptr};
  // A prerequisite that failed fails the check that needs it (validate
  // reports the prerequisite beside it; here the check is all there is).
  view.blocked = [&config](const std::string& check, const std::string& prerequisite, const std::string& why) {
    return Fail(check, CheckScope::kNode, config.node, "not checked: " + prerequisite + " failed (" + why + ")");
  };
  const auto end = kMachineClock.Monotonic() + budget;
  for (const ProbeSpec* probe : ProbesFor(view, needed)) {
    readings.outputs[probe->id] = ReadProbe(*probe, view, commands, end);
  }
  NodeHealth health;
  std::map<std::string, CheckResult> judged;
  for (const CheckSpec* spec : CheckSpecs()) {
    if (!needed.count(spec->name) || !RunsOnNodeAlone(*spec)) continue;
    CheckResult result = JudgeNodeCheck(*spec, view, judged);
    if (std::find(config.checks.begin(), config.checks.end(), spec->name) != config.checks.end()) {
      health.results.push_back(result);
    }
    judged.emplace(spec->name, std::move(result));
  }
  return health;
}

}  // namespace clusterctl::health
