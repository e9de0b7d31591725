#include "controller/validate/acceptance_drain.h"

#include <algorithm>
#include <map>

#include "common/strings.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/slurm_drain.h"

namespace clusterctl {
namespace {

bool IsAcceptance(const std::string& check) {
  const CheckSpec* spec = FindCheckSpec(check);
  return spec != nullptr && spec->level == CheckLevel::kAcceptance;
}

// The compute nodes acceptance judged, each with its failures, in report order.
std::vector<std::pair<std::string, std::vector<const CheckResult*>>> Judged(const ClusterRun& run,
                                                                           const std::vector<CheckResult>& results) {
  std::vector<std::pair<std::string, std::vector<const CheckResult*>>> nodes;
  std::map<std::string, size_t> index;
  const Group* compute = run.inventory().FindGroup(kGroupCompute);
  auto is_compute = [&](const std::string& host) {
    return compute != nullptr && std::find(compute->members.begin(), compute->members.end(), host) != compute->members.end();
  };
  for (const CheckResult& r : results) {
    if (r.scope != CheckScope::kNode || !IsAcceptance(r.check) || !is_compute(r.subject)) continue;
    auto [it, added] = index.emplace(r.subject, nodes.size());
    if (added) nodes.push_back({r.subject, {}});
    if (r.outcome == CheckOutcome::kFail) nodes[it->second].second.push_back(&r);
  }
  return nodes;
}

std::string Failed(const ToolOutput& output) {
  return ExitDescription(output) + ": " + Printable(FirstCause(output.Both()), 200);
}

}  // namespace

std::vector<std::string> DrainFailedNodes(ClusterRun& run, const std::string& controller,
                                          const std::vector<CheckResult>& results) {
  const auto nodes = Judged(run, results);
  if (nodes.empty()) return {"no compute node was measured: nothing to drain or resume"};
  if (controller.empty()) return {"no Slurm controller in the inventory: nothing drained or resumed"};
  std::vector<HostCommand> shows;
  for (const auto& [node, failures] : nodes) {
    shows.push_back({.host = controller, .argv = ShowNodeArgv(node), .timeout_s = 15, .input = {}});
  }
  const std::vector<Result<ToolOutput>> shown = run.RunCommands(shows);
  std::vector<std::string> lines;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const std::string& node = nodes[k].first;
    Result<SlurmNodeState> state = shown[k].ok() ? NodeStateFrom(node, *shown[k]) : Result<SlurmNodeState>(shown[k].status());
    if (!state.ok()) {
      lines.push_back(node + ": nothing changed: " + state.status().message());
      continue;
    }
    const SlurmAction action = DecideDrain(kAcceptanceDrains, *state, nodes[k].second);
    std::string line = node + ": " + action.why + (action.reason.empty() ? "" : " (" + action.reason + ")");
    if (action.kind != SlurmAction::Kind::kNone) {
      const std::vector<Result<ToolOutput>> done =
          run.RunCommands({{.host = controller, .argv = ActionArgv(action, node), .timeout_s = 15, .input = {}}});
      if (!done[0].ok()) line += ": not done: " + done[0].status().message();
      else if (!done[0]->Succeeded()) line += ": scontrol update failed: " + Failed(*done[0]);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace clusterctl
