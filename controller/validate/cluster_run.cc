#include "controller/validate/cluster_run.h"

#include <cassert>

namespace clusterctl {
namespace {

// The result of a node `check` cannot be measured on, or nullopt: a
// prerequisite that did not pass blocks it (the node phase judges no
// prerequisite of a check without a node verdict).
std::optional<CheckResult> NotMeasurable(const ClusterRun& run, const CheckSpec& spec, const NodeView& view) {
  for (const Prerequisite& p : spec.prerequisites) {
    if (run.NodeOutcome(p.check, view.host()) == CheckOutcome::kPass) continue;
    const std::string why = p.why != nullptr ? p.why(view) : std::string(p.check) + " did not pass on " + view.host();
    return run.Blocked(spec.name, CheckScope::kNode, view.host(), p.check, why);
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> MeasurableNodes(ClusterRun& run, const std::string& check) {
  const CheckSpec* spec = FindCheckSpec(check);
  assert(spec != nullptr && "MeasurableNodes of an unregistered check");
  std::vector<std::string> nodes;
  for (const ClusterRun::ProbedHost& h : run.ProbedHosts()) {
    if (!h.selected || !h.reached) continue;
    const NodeView view = run.View(h.name);
    if (!UnmetRequirement(*spec, view).empty()) continue;
    if (std::optional<CheckResult> blocked = NotMeasurable(run, *spec, view)) {
      run.Add(std::move(*blocked));
    } else {
      nodes.push_back(h.name);
    }
  }
  return nodes;
}

}  // namespace clusterctl
