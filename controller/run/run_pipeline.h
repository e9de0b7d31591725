// The run pipeline after preparation (run/run_request.h), the same for the
// command line and the daemon: each kind of run has one call that does its
// work over the run's SessionFactory (SSH, or a fleet of fake nodes in unit
// tests) and one that completes it, writing what it found and how it ended
// to the state (RunSession::Finish).
//
//   deploy, plan, drift   Deploy             -> CompleteDeployment
//   validate              Validate           -> CompleteValidation
//   facts                 GatherFacts        -> CompleteFacts
//   run                   RunCommand         -> CompleteCommand (run/command_run.h)
//
// Nothing here prints: the adapters render the results and map the
// completed run to an exit or HTTP code.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cancel_token.h"
#include "controller/engine/deploy_events.h"
#include "controller/engine/deploy_run.h"
#include "controller/run/run_request.h"
#include "controller/run/run_session.h"
#include "controller/validate/validation_run.h"

namespace clusterctl {

// A run as its record says it ended.
struct CompletedRun {
  RunStatus status = RunStatus::kOk;
  nlohmann::json summary;          // as recorded
  std::vector<std::string> notes;  // for the admin (jump hosts)
  // Problems writing the state ("saving facts: ...", "recording the run:
  // ..."); the run itself may have gone well.
  std::vector<std::string> state_errors;
};

// Ends the run's record with every host's result: `status` when given,
// else ok when every host was.
CompletedRun CompleteRun(RunSession& session, const std::vector<HostResult>& hosts, nlohmann::json summary,
                         std::optional<RunStatus> status = std::nullopt);

// Deploy, plan or drift check: RunDeployment over the run's sessions.
DeploymentResult Deploy(const PreparedRun& run, RunSession& session, DeployListener& listener,
                        const CancelToken& cancel);
// Records each host's outcome and the run's summary (hosts, changed and
// failed steps, check; unreachable hosts when any were; stopped when it
// was), with `extra` fields (a drift check's drifted hosts), and the hosts'
// drift marks (drift_marks.h). A run that ended before its hosts (invalid
// input, the state) is failed with its error.
CompletedRun CompleteDeployment(RunSession& session, const PreparedRun& run, const DeploymentResult& result,
                                const nlohmann::json& extra = nlohmann::json::object());

// Validate: RunValidation over `sessions`, its deadline on `clock`;
// `progress` is told what the measurement checks are doing (may be empty).
ValidationOutcome Validate(const PreparedRun& run, SessionFactory& sessions, const Clock& clock,
                           std::function<void(const std::string&)> progress = {});
// Records the results (and the facts gathered on the way) and the run:
// summary {pass, fail, skip}; failed when a check failed or a host was not
// reached.
CompletedRun CompleteValidation(RunSession& session, const ValidationOutcome& outcome);
// pass, fail and skip counted (each present, 0 when none).
std::map<std::string, int> ValidationCounts(const ValidationOutcome& outcome);

// Facts: each host's facts from its agent (HostResult::data); each request's deadline on `clock`.
std::vector<HostResult> GatherFacts(const PreparedRun& run, SessionFactory& sessions, const Clock& clock);
// Stores the facts of the hosts that gave them; summary {hosts, ok, not_ok}.
CompletedRun CompleteFacts(RunSession& session, const std::vector<HostResult>& results);

}  // namespace clusterctl
