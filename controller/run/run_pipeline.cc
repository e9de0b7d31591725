#include "controller/run/run_pipeline.h"

#include "controller/engine/alertmanager_silences.h"
#include "controller/engine/node_power.h"
#include "controller/run/drift_marks.h"
#include "controller/validate/validation_record.h"

namespace clusterctl {
namespace {

// A deployment's hosts as its run records them.
std::vector<HostResult> HostResultsOf(const DeploymentResult& result, const Inventory& inventory) {
  std::vector<HostResult> results;
  for (const HostReport& r : result.hosts) {
    HostResult host;
    host.host = inventory.FindHost(r.host);
    if (!host.host) continue;
    host.state = r.outcome == HostOutcome::kOk            ? HostResult::State::kOk
                 : r.outcome == HostOutcome::kUnreachable ? HostResult::State::kUnreachable
                                              : HostResult::State::kFailed;
    host.error = r.error;
    host.contacted = r.contacted || r.outcome == HostOutcome::kUnreachable || r.outcome == HostOutcome::kFailed;
    results.push_back(host);
  }
  return results;
}

nlohmann::json DeploymentSummary(const DeploymentResult& result, bool check) {
  nlohmann::json summary = {{"hosts", result.hosts.size()}, {"changed", result.changed},
                            {"failed", result.failed},      {"check", check}};
  if (result.stopped) summary["stopped"] = true;
  // Hosts, as they have no steps to count (a run of unreachable hosts failed with "failed": 0 steps).
  size_t unreachable = 0;
  for (const HostReport& r : result.hosts) unreachable += r.outcome == HostOutcome::kUnreachable ? 1 : 0;
  if (unreachable > 0) summary["unreachable"] = unreachable;
  return summary;
}

// The per-host body that asks the agent for facts (result.data = facts).
Task<void> GatherFactsOf(AgentSession& agent, HostResult& result, const Clock& clock) {
  auto facts = co_await agent.Facts(clock.Monotonic() + std::chrono::seconds(60));
  if (!facts.ok()) {
    result.Fail(facts.status());
  } else {
    result.data = std::move(facts).value();
  }
}

}  // namespace

CompletedRun CompleteRun(RunSession& session, const std::vector<HostResult>& hosts, nlohmann::json summary,
                         std::optional<RunStatus> status) {
  bool all_ok = true;
  for (const HostResult& r : hosts) all_ok = all_ok && r.state == HostResult::State::kOk;
  CompletedRun completed;
  completed.status = status.value_or(all_ok ? RunStatus::kOk : RunStatus::kFailed);
  completed.summary = std::move(summary);
  RunSession::Ending ending = session.Finish(hosts, completed.status, completed.summary);
  completed.notes = std::move(ending.notes);
  if (!ending.recorded.ok()) completed.state_errors.push_back("recording the run: " + ending.recorded.message());
  return completed;
}

DeploymentResult Deploy(const PreparedRun& run, RunSession& session, DeployListener& listener,
                        const CancelToken& cancel) {
  DeploymentInputs inputs{run.inventory, run.catalog, run.hosts, &session.state(), session.run_id(), run.Deployment()};
  inputs.clock = &session.clock();
  // A node the deploy reboots is silenced in the cluster's Alertmanager, when it has one.
  std::unique_ptr<MaintenanceSilences> silences;
  if (std::optional<AlertmanagerSite> site = FindAlertmanager(*run.inventory, *run.catalog)) {
    silences = MakeAlertmanagerSilences(std::move(*site), session.clock());
  }
  inputs.silences = silences.get();
  // A node that does not come back from its reboot is power-cycled through its BMC, when it has one.
  LocalProcessRunner ipmitool(session.clock());
  std::unique_ptr<NodePower> power = MakeBmcNodePower(ipmitool);
  inputs.power = power.get();
  return RunDeployment(inputs, session.sessions(), listener, cancel);
}

CompletedRun CompleteDeployment(RunSession& session, const PreparedRun& run, const DeploymentResult& result,
                                const nlohmann::json& extra) {
  if (result.ending != DeploymentResult::Ending::kCompleted) {
    return CompleteRun(session, {}, {{"error", result.error}}, RunStatus::kFailed);
  }
  std::vector<std::string> marks_unwritten = RecordDriftMarks(session.state(), run.kind(), run.Deployment(), result);
  nlohmann::json summary = DeploymentSummary(result, run.Deployment().check);
  summary.update(extra);
  CompletedRun completed = CompleteRun(session, HostResultsOf(result, *run.inventory), std::move(summary),
                                       result.stopped ? std::optional(RunStatus::kInterrupted) : std::nullopt);
  completed.state_errors.insert(completed.state_errors.end(), marks_unwritten.begin(), marks_unwritten.end());
  return completed;
}

ValidationOutcome Validate(const PreparedRun& run, SessionFactory& sessions, const Clock& clock,
                           std::function<void(const std::string&)> progress) {
  ValidationInputs inputs;
  inputs.progress = std::move(progress);
  inputs.drain_failed = run.request.drain_failed;
  inputs.clock = &clock;
  inputs.inventory = run.inventory;
  inputs.selected = run.hosts;
  inputs.checks = run.checks;
  inputs.deadline = run.request.deadline;
  inputs.run_on = [&sessions](const std::vector<const Host*>& hosts, const HostBody& body) {
    return RunOnHosts(sessions, hosts, body);
  };
  LocalProcessRunner processes(clock);  // ipmitool for the BMCs (bmc.*)
  inputs.processes = &processes;
  return RunValidation(inputs);
}

std::map<std::string, int> ValidationCounts(const ValidationOutcome& outcome) {
  std::map<std::string, int> counts = CountOutcomes(outcome.results);
  for (const char* outcome_word : {"pass", "fail", "skip"}) counts[outcome_word] += 0;
  return counts;
}

CompletedRun CompleteValidation(RunSession& session, const ValidationOutcome& outcome) {
  std::map<std::string, int> counts = ValidationCounts(outcome);
  Status saved = RecordValidation(session.state(), session.run_id(), outcome);
  // Unreachable hosts are already results (reachable: fail); the run records them.
  CompletedRun completed = CompleteRun(session, outcome.probe_results,
                                       {{"pass", counts["pass"]}, {"fail", counts["fail"]}, {"skip", counts["skip"]}},
                                       counts["fail"] > 0 ? std::optional(RunStatus::kFailed) : std::nullopt);
  if (!saved.ok()) completed.state_errors.insert(completed.state_errors.begin(), "saving the validation: " + saved.message());
  return completed;
}

std::vector<HostResult> GatherFacts(const PreparedRun& run, SessionFactory& sessions, const Clock& clock) {
  return RunOnHosts(sessions, run.hosts,
                    [&clock](AgentSession& agent, HostResult& result) { return GatherFactsOf(agent, result, clock); });
}

CompletedRun CompleteFacts(RunSession& session, const std::vector<HostResult>& results) {
  std::vector<std::pair<std::string, nlohmann::json>> gathered;
  for (const HostResult& r : results) {
    if (r.state == HostResult::State::kOk) gathered.emplace_back(r.host->name, r.data);
  }
  Status saved = session.state().SaveFacts(session.run_id(), gathered);
  const size_t ok = gathered.size();
  CompletedRun completed = CompleteRun(session, results, {{"hosts", results.size()}, {"ok", ok}, {"not_ok", results.size() - ok}});
  if (!saved.ok()) completed.state_errors.insert(completed.state_errors.begin(), "saving facts: " + saved.message());
  return completed;
}

}  // namespace clusterctl
