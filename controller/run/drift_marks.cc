#include "controller/run/drift_marks.h"

#include <algorithm>

namespace clusterctl {
namespace {

bool WouldChange(const HostReport& report) {
  return std::any_of(report.steps.begin(), report.steps.end(),
                     [](const StepReport& step) { return step.status == StepStatus::kWouldChange; });
}

}  // namespace

std::vector<std::string> RecordDriftMarks(HostRecords& hosts, RunKind kind, const DeploymentOptions& options,
                                          const DeploymentResult& result) {
  const bool drift_check = kind == RunKind::kDrift;
  if (result.ending != DeploymentResult::Ending::kCompleted) return {};
  if (!drift_check && !options.VerifiesEverything()) return {};
  std::vector<std::string> problems;
  for (const HostReport& report : result.hosts) {
    if (report.outcome != HostOutcome::kOk) continue;
    const Status written = hosts.SetHostDrifted(report.host, drift_check && WouldChange(report));
    if (!written.ok()) problems.push_back("recording the drift mark of " + report.host + ": " + written.message());
  }
  return problems;
}

}  // namespace clusterctl
