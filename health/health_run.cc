#include "health/health_run.h"

#include <chrono>

#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/strings.h"
#include "health/health_config.h"
#include "health/slurm_drain.h"
#include "health/textfile.h"

namespace clusterctl::health {
namespace {

void PrintResults(const NodeHealth& health, std::ostream& out) {
  for (const CheckResult& r : health.results) {
    out << ToString(r.outcome) << " " << r.check << ": " << (r.detail.empty() ? r.measured : r.detail) << "\n";
  }
}

// slurmctld's record of the node; an error when it cannot be read.
Result<SlurmNodeState> ReadNodeState(const std::string& node, NodeCommands& commands) {
  return NodeStateFrom(node, commands.Run(ShowNodeArgv(node), std::chrono::seconds(15)));
}

void WriteTextfile(const std::string& path, const NodeHealth& health, bool drained, std::ostream& out) {
  if (path.empty()) return;
  const double now = static_cast<double>(SystemClock().NowMs()) / 1000.0;
  Status written = WriteFileAtomic(path, TextfileMetrics(health, drained, now), 0644, 0, 0);
  if (!written.ok()) out << "textfile " << path << ": " << written.message() << "\n";
}

}  // namespace

int RunHealthCheck(const HealthRunOptions& options, const std::string& config_text, nlohmann::json facts,
                   NodeCommands& commands, std::ostream& out) {
  Result<HealthConfig> config = ParseHealthConfig(config_text);
  if (!config.ok()) {
    out << "clusterctl-health: the configuration is unusable: " << config.status().message() << "\n";
    return 1;
  }
  const NodeHealth health = JudgeNode(*config, std::move(facts), commands);
  PrintResults(health, out);
  Result<SlurmNodeState> state = ReadNodeState(config->node, commands);
  if (!state.ok()) {
    out << "clusterctl-health: nothing changed: " << state.status().message() << "\n";
    WriteTextfile(config->textfile, health, false, out);
    return 2;
  }
  const SlurmAction action = Decide(*state, health);
  out << config->node << ": " << action.why << (action.reason.empty() ? "" : " (" + action.reason + ")") << "\n";
  if (action.kind != SlurmAction::Kind::kNone && !options.dry_run) {
    ToolOutput changed = commands.Run(ActionArgv(action, config->node), std::chrono::seconds(15));
    if (!changed.Succeeded()) {
      out << "clusterctl-health: scontrol update failed: " << ExitDescription(changed) << ": "
          << Printable(FirstCause(changed.Both()), 200) << "\n";
      WriteTextfile(config->textfile, health, false, out);
      return 2;
    }
  }
  WriteTextfile(config->textfile, health, action.drained_by_owner && !options.dry_run, out);
  return 0;
}

}  // namespace clusterctl::health
