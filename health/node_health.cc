#include "health/node_health.h"

#include <algorithm>
#include <map>

#include "controller/validate/check_selection.h"

namespace clusterctl::health {
namespace {

using SteadyClock = std::chrono::steady_clock;

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
ToolOutput ReadProbe(const ProbeSpec& probe, const NodeView& view, NodeCommands& commands, SteadyClock::time_point end) {
  auto limit = [&](int own_s) {
    auto left = std::chrono::duration_cast<std::chrono::seconds>(end - SteadyClock::now());
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

}  // namespace

std::vector<const CheckResult*> NodeHealth::Failures() const {
  std::vector<const CheckResult*> failed;
  for (const CheckResult& r : results) {
    if (r.outcome == CheckOutcome::kFail) failed.push_back(&r);
  }
  return failed;
}

NodeHealth JudgeNode(const HealthConfig& config, nlohmann::json facts, NodeCommands& commands, std::chrono::seconds budget) {
  NodeReadings readings = NodeReadings::FromFacts(config.node, std::move(facts));
  Result<Thresholds> thresholds = ReadThresholds(config.vars);
  NodeHealth health;
  if (config.checks.empty()) return health;  // (an empty selection would be every check)
  if (!thresholds.ok()) {  // the controller checked them at deploy; a hand-edited file may not be
    for (const std::string& check : config.checks) {
      health.results.push_back(Fail(check, CheckScope::kNode, config.node, "not checked: " + thresholds.status().message()));
    }
    return health;
  }
  // A prerequisite that failed fails the check that needs it (validate
  // reports the prerequisite beside it; here the check is all there is).
  NodeView view{readings, *thresholds, config.vars, ComputeNode(), nullptr, nullptr};
  view.blocked = [&config](const std::string& check, const std::string& prerequisite, const std::string& why) {
    return Fail(check, CheckScope::kNode, config.node, "not checked: " + prerequisite + " failed (" + why + ")");
  };
  const std::set<std::string> needed = NeededChecks(*CheckSelection::Parse(config.checks));
  const auto end = SteadyClock::now() + budget;
  for (const ProbeSpec* probe : ProbesFor(view, needed)) {
    readings.outputs[probe->id] = ReadProbe(*probe, view, commands, end);
  }
  std::map<std::string, CheckResult> judged;
  for (const CheckSpec* spec : CheckSpecs()) {
    if (!needed.count(spec->name) || !RunnableOnNode(spec->name)) continue;
    CheckResult result = JudgeNodeCheck(*spec, view, judged);
    if (std::find(config.checks.begin(), config.checks.end(), spec->name) != config.checks.end()) {
      health.results.push_back(result);
    }
    judged.emplace(spec->name, std::move(result));
  }
  return health;
}

}  // namespace clusterctl::health
