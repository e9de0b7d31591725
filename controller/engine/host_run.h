// HostRun: one host's deploy (the executor's internals; see executor.h for
// the contract). Its connection, the intents it owes, and the report it
// builds. host_run.cc runs roles and steps; host_followups.cc owns what
// steps owe: intents, handlers and reboots.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/engine/executor.h"

namespace clusterctl {

class HostRun {
 public:
  HostRun(const HostPlan& plan, DeployContext& context, std::unique_ptr<AgentSession> session);
  Task<HostReport> Run();

 private:
  using Clock = std::chrono::steady_clock;
  using Owed = std::vector<std::pair<std::string, std::string>>;  // kind, target

  // host_run.cc
  Task<bool> Connect();
  void Finish(Clock::time_point start);
  void MarkRemainingFailed(const Role* failed_role);
  void Fail(StepReport step);
  void Emit(const StepReport& step);
  void Emit(DeployEvent event);
  // True (and the host ends "stopped") once the run was asked to stop.
  bool Stopping(const std::string& next);
  // Records a lost connection or an abandoned request as the host's outcome.
  void ConnectionLost(StepReport& step);
  Task<agent_protocol::ResourceResult> Call(const PlannedStep& step, bool apply);
  StepReport ToReport(const PlannedStep& step, const agent_protocol::ResourceResult& outcome);
  std::string Masked(std::string text) const;
  void Record(const PlannedStep& step, const std::string& status, bool changed, int64_t started,
              const std::string& summary);
  Task<Status> Upload(const PlannedStep& step, const agent_protocol::ResourceResult& state, uint64_t& resumed_at);
  Task<bool> RunStep(const PlannedStep& step, bool& role_changed);
  Task<bool> WaitForRoles(const std::vector<RoleWait>& waits, const std::string& who, const std::string& failed_prefix);
  Task<bool> RunRole(const Role& role);

  // host_followups.cc
  Owed OwedBy(const PlannedStep& step) const;
  Task<bool> OpenIntents(const Owed& owed, const PlannedStep& cause);
  void CloseIntent(const std::string& target);
  Task<Status> SaveIntentDetail(Intent& intent, nlohmann::json detail);
  Task<bool> RunHandler(const PlannedStep& handler);
  Task<bool> PlanHandler(const PlannedStep& handler);
  Task<bool> RestartAlreadyDone(const PlannedStep& handler, Intent& intent, bool& done);
  Task<std::string> BootId();
  Task<bool> RunReboot(const PlannedStep& step);
  void PlanReboot(const PlannedStep& step);
  Task<bool> AwaitNewBoot(const PlannedStep& step, const std::string& before, std::string& after);
  bool HandlerDue(const PlannedStep& handler) const;
  bool RebootInFlight() const;
  Task<bool> WaitBeforeHandler(const PlannedStep& handler);
  Task<bool> RunLeftoverHandlers();

  const HostPlan& plan_;
  DeployContext& context_;
  HostReport report_;
  std::unique_ptr<AgentSession> agent_;
  std::map<std::string, Intent> intents_;                // open, by target
  std::map<std::string, std::string> notified_in_plan_;  // target -> step (check mode)
  Status connection_error_;                              // the session is gone (unreachable, or abandoned)
};

int64_t NowMs();

// The report of a step (or a wait or follow-up) that failed with `error`.
StepReport FailedStep(const std::string& identity, bool handler, std::string error);

}  // namespace clusterctl
