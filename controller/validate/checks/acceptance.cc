#include "controller/validate/checks/acceptance.h"

#include <map>

#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {

std::vector<std::string> MeasuredNodes(ClusterRun& run, const std::string& check, const ProbeSpec& installed,
                                       const std::string& tool) {
  std::vector<std::string> nodes;
  for (const std::string& node : MeasurableNodes(run, check)) {
    if (!run.View(node).node.Output(installed.id).Succeeded()) {
      run.Add(Fail(check, kNode, node, NotInstalled(tool, node), {}, "unknown"));
      continue;
    }
    nodes.push_back(node);
  }
  return nodes;
}

std::string NotInstalled(const std::string& tool, const std::string& node) {
  return tool + " is not installed on " + node + " (the acceptance-tools role installs it: acceptance_tools: true)";
}

PeerReading ReadingOf(const NodeView& view, const std::string& part, double value, const char* floor_variable,
                      const char* percent_variable) {
  PeerReading reading;
  reading.subject = view.host();
  reading.group = part + "\n" + StringVariable(view.vars, kPeerGroupVariable).value_or("");
  reading.value = value;
  if (floor_variable != nullptr) reading.floor = NumberVariable(view.vars, floor_variable);
  reading.outlier_percent = NumberVariable(view.vars, percent_variable).value_or(20);
  return reading;
}

int MeasureSeconds(const NodeView& view) {
  return static_cast<int>(IntegerVariable(view.vars, kAcceptanceSecondsVariable).value_or(30));
}

std::vector<CheckResult> PerNode(const std::vector<PartResult>& parts) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const PartResult*>> by_node;
  for (const PartResult& p : parts) {
    if (by_node[p.node].empty()) order.push_back(p.node);
    by_node[p.node].push_back(&p);
  }
  std::vector<CheckResult> results;
  for (const std::string& node : order) {
    std::vector<std::string> measured, thresholds, failed, passed;
    std::vector<std::string> evidence;
    for (const PartResult* p : by_node[node]) {
      const CheckResult& r = p->result;
      measured.push_back(p->part + " " + r.measured);
      if (!r.threshold.empty()) thresholds.push_back(p->part + " " + r.threshold);
      (r.outcome == CheckOutcome::kFail ? failed : passed).push_back(p->part + ": " + r.detail);
      evidence.insert(evidence.end(), r.evidence.begin(), r.evidence.end());
    }
    const CheckResult& first = by_node[node].front()->result;
    CheckResult merged = failed.empty() ? Pass(first.check, first.scope, node, "", "", Join(passed, "; "))
                                        : Fail(first.check, first.scope, node, Join(failed, "; "), evidence);
    merged.measured = Join(measured, ", ");
    merged.threshold = Join(thresholds, ", ");
    results.push_back(std::move(merged));
  }
  return results;
}

}  // namespace clusterctl::checks
