// HostRun: one host's deploy (the executor's internals; see executor.h for
// the contract). Its connection, the intents it owes, and the report it
// builds. host_run.cc runs roles and steps; host_followups.cc owns what
// steps owe: intents, handlers and follow-up steps. What a kind adds (an
// upload, a restart probe, a reboot) is in its file under kinds/.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller/engine/executor.h"
#include "controller/engine/host_run_phase.h"
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {

class HostRun final : public KindHost, public KindTransport, public KindIntents, public KindReport {
 public:
  HostRun(const HostPlan& plan, DeployContext& context, std::unique_ptr<AgentSession> session);
  Task<HostReport> Run();

  // KindHost and its capabilities: what a kind's hooks (kinds/step_kind.h) may do on this run.
  KindTransport& transport() override { return *this; }
  KindIntents& intents() override { return *this; }
  KindReport& report() override { return *this; }
  const ExecutionOptions& options() const override { return context_.options; }
  const Clock& clock() const override;
  const Host& host() const override { return *plan_.host; }
  NodePower* power() override { return context_.power; }
  Task<agent_protocol::ResourceResult> Call(const PlannedStep& step, bool apply) override;
  Task<Status> SendChunk(agent_protocol::UploadChunkRequest request) override;
  bool SessionLost() const override { return !connection_error_.ok(); }
  AgentSession& agent() override { return *agent_; }
  void Disconnect() override { agent_.reset(); }
  Task<bool> Reconnect() override;
  Intent* OwedIntent(const std::string& target) override;
  std::string NotifiedInPlan(const std::string& target) const override;
  void CloseIntent(const std::string& target) override;
  Task<Status> SaveIntentDetail(Intent& intent, nlohmann::json detail) override;
  bool Stopping(const std::string& next) override;
  void Started(const std::string& what) override;
  void CountOk() override { ++report_.ok; }
  void Changed(StepReport report) override;
  void Fail(StepReport step) override;
  void FailUnreachable(const std::string& step, const std::string& error) override;
  void Record(const PlannedStep& step, StepStatus status, bool changed, int64_t started,
              const std::string& summary) override;
  bool WillRun(const PlannedStep& step) const override;
  void Note(const std::string& message) override { Emit(NoteEvent{report_.host, message}); }
  Task<bool> OpenIntentsOwedBy(const PlannedStep& step) override;
  void CreditUpFront(const PlannedStep& step, std::vector<std::string> differences) override {
    up_front_credits_[step.Identity()] = std::move(differences);
  }
  nlohmann::json& KindMemo(const std::string& kind) override { return kind_memos_[kind]; }
  Task<void> NodeGoingDown(const std::string& why, std::chrono::seconds down_for) override;
  WaitReport BeginWait(const std::string& what) override;
  void Event(const std::string& level, const std::string& kind, const std::string& message) override;

 private:
  using Owed = std::vector<std::pair<std::string, const PlannedStep*>>;  // intent kind, the follow-up owed

  // host_run.cc
  Task<bool> Connect();
  void Finish(std::chrono::steady_clock::time_point start);
  void MarkRemainingFailed(const Role* failed_role);
  void Emit(const StepReport& step);
  void Emit(DeployEvent event);
  // A wait's event to the listeners; its end, when it lasted a second or
  // more, to the state's events.
  void Told(const WaitEvent& wait);
  // Records a lost connection or an abandoned request as the host's outcome.
  void ConnectionLost(StepReport& step);
  StepReport ToReport(const PlannedStep& step, const agent_protocol::ResourceResult& outcome);
  // A change made up front for `step` (CreditUpFront) joins its outcome, once.
  void TakeUpFrontCredit(const PlannedStep& step, agent_protocol::ResourceResult& outcome);
  std::string Masked(std::string text) const;
  Task<bool> RunStep(const PlannedStep& step, bool& role_changed);
  Task<bool> WaitForRoles(const std::vector<RoleWait>& waits, const std::string& who, const std::string& failed_prefix);
  // The role's waits whose `before` is this step, the first time a step of
  // that name is reached (a loop's items share it); `waited` holds those done.
  Task<bool> WaitBeforeStep(const PlannedStep& step, std::set<std::string>& waited);
  Task<bool> RunRole(const Role& role);
  // Every kind's work for many steps at once (StepKind::UpFront) before
  // `next`, deploy only.
  Task<bool> RunUpFront(const Role& next);

  // host_followups.cc
  Owed OwedBy(const PlannedStep& step) const;
  Task<bool> OpenIntents(const Owed& owed, const PlannedStep& cause);
  Task<bool> OpenIntent(std::string kind, std::string target, const PlannedStep& cause);
  Task<bool> RunHandler(const PlannedStep& handler);
  Task<bool> PlanHandler(const PlannedStep& handler);
  bool HandlerDue(const PlannedStep& handler) const;
  // A follow-up an earlier run asked for that may keep the node down (a reboot).
  bool FollowUpInFlight() const;
  Task<bool> WaitBeforeHandler(const PlannedStep& handler);
  Task<bool> RunLeftoverHandlers();
  std::chrono::seconds MaintenanceLasts(const PlannedStep& step) const;

  const HostPlan& plan_;
  DeployContext& context_;
  HostReport report_;
  std::unique_ptr<AgentSession> agent_;
  std::map<std::string, Intent> intents_;                // open, by target
  std::map<std::string, std::string> notified_in_plan_;  // target -> step (check mode)
  Status connection_error_;                              // the session is gone (unreachable, or abandoned)
  std::map<std::string, nlohmann::json> kind_memos_;     // by kind (KindMemo)
  std::vector<std::unique_ptr<HostRunPhase>> phases_;      // the registered host phases (host_run_phase.h)
  // Changes made up front, by step identity, until the step runs (CreditUpFront).
  std::map<std::string, std::vector<std::string>> up_front_credits_;
};

}  // namespace clusterctl
