#include "controller/engine/host_run.h"

#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/use_awaitable.hpp>

#include "common/strings.h"
#include "controller/remote/sleep.h"

namespace clusterctl {
namespace {

bool RecordedCurrent(const PlannedStep& step, const std::string& host, const DeployContext& context) {
  auto host_it = context.last_results->find(host);
  if (host_it == context.last_results->end()) return false;
  auto it = host_it->second.find(step.Identity());
  if (it == host_it->second.end()) return false;
  const StepStatus recorded = it->second.status;
  if (step.skipped) return recorded == StepStatus::kSkipped;
  return it->second.input_hash == step.input_hash && (recorded == StepStatus::kOk || recorded == StepStatus::kChanged);
}

// The report of a step that did not need the node's answer.
StepReport Settled(const PlannedStep& step, StepStatus status, bool checked, std::vector<std::string> why = {}) {
  StepReport r;
  r.identity = step.Identity();
  r.status = status;
  r.checked = checked;
  r.differences = std::move(why);
  return r;
}

}  // namespace

StepReport FailedStep(const std::string& identity, bool handler, std::string error) {
  StepReport r;
  r.identity = identity;
  r.status = StepStatus::kFailed;
  r.handler = handler;
  r.error = std::move(error);
  return r;
}

bool HostNeedsContact(const HostPlan& plan, const DeployContext& context) {
  if (context.options.verify) return true;
  if (auto it = context.open_intents->find(plan.host->name); it != context.open_intents->end() && !it->second.empty()) {
    return true;
  }
  for (const PlannedStep& step : plan.steps) {
    if (FindStepKind(step.kind).IsFollowUp()) continue;  // owed by another step's change, never due alone
    if (!RecordedCurrent(step, plan.host->name, context)) return true;
  }
  return false;
}

HostRun::HostRun(const HostPlan& plan, DeployContext& context, std::unique_ptr<AgentSession> session)
    : plan_(plan), context_(context), agent_(std::move(session)) {
  report_.host = plan.host->name;
  if (auto it = context.open_intents->find(report_.host); it != context.open_intents->end()) {
    for (const Intent& intent : it->second) intents_[intent.target] = intent;
  }
  phases_ = MakeHostRunPhases({report_.host, context_});
}

const Clock& HostRun::clock() const {
  static const SystemClock system;
  return context_.clock ? *context_.clock : system;
}

Task<HostReport> HostRun::Run() {
  const auto start = clock().Monotonic();
  if (!HostNeedsContact(plan_, context_)) {
    for (const PlannedStep& step : plan_.steps) {
      ++(step.skipped ? report_.skipped : report_.ok);
      report_.steps.push_back(Settled(step, step.skipped ? StepStatus::kSkipped : StepStatus::kOk, false));
    }
    for (const Role* role : plan_.roles) context_.board->MarkDone(role->name, report_.host);
    Finish(start);
    co_return report_;
  }
  report_.contacted = true;
  Emit(HostStartedEvent{report_.host});
  if (!co_await Connect()) {
    Finish(start);
    co_return report_;
  }
  for (const Role* role : plan_.roles) {
    if (!co_await RunRole(*role)) {
      MarkRemainingFailed(role);
      break;
    }
    context_.board->MarkDone(role->name, report_.host);
  }
  if (report_.failed == 0 && report_.outcome == HostOutcome::kOk) co_await RunLeftoverHandlers();
  for (const std::unique_ptr<HostRunPhase>& phase : phases_) co_await phase->HostDone(*this);
  if (agent_ && connection_error_.ok()) co_await agent_->Close(clock().Monotonic() + std::chrono::seconds(5));
  Finish(start);
  co_return report_;
}

Task<void> HostRun::NodeGoingDown(const std::string& why, std::chrono::seconds down_for) {
  for (const std::unique_ptr<HostRunPhase>& phase : phases_) co_await phase->NodeGoingDown(*this, why, down_for);
}

// How long a maintenance step's silence must last at most: the step (its
// `timeout`, else the run's step timeout) and the reboot that usually
// follows it. The silence ends with the host's run; this bounds only one a
// dead controller leaves behind.
std::chrono::seconds HostRun::MaintenanceLasts(const PlannedStep& step) const {
  const auto run_step_timeout = std::chrono::duration_cast<std::chrono::seconds>(context_.options.step_timeout);
  return step.Timeout().value_or(run_step_timeout) + context_.options.reboot_timeout;
}

bool HostRun::WillRun(const PlannedStep& step) const {
  return !step.skipped && (context_.options.verify || !RecordedCurrent(step, report_.host, context_));
}

Task<bool> HostRun::RunUpFront(const Role& next) {
  if (context_.options.check) co_return true;  // plan makes no change, so it has nothing to do at once
  for (const std::string& kind : StepKindsWithControllerSide()) {
    if (!co_await FindStepKind(kind).UpFront(*this, plan_, next)) co_return false;
  }
  co_return true;
}

Task<bool> HostRun::Connect() {
  if (agent_) co_return true;
  Emit(HostPhaseEvent{report_.host, HostPhase::kConnecting});
  OpenedSession opened = co_await context_.sessions->Open(*plan_.host, context_.cancel);
  for (const std::string& note : opened.notes) Emit(NoteEvent{report_.host, note});
  // An interrupted run asked this node to reboot: it may still be down.
  // Waited for as the reboot step waits, not reported unreachable at once.
  const auto deadline = clock().Monotonic() + context_.options.reboot_timeout;
  while (!opened.session && opened.unreachable && FollowUpInFlight() && clock().Monotonic() < deadline) {
    if (Stopping(report_.host + " (waiting for its reboot)")) co_return false;
    co_await SleepFor(clock(), context_.options.reboot_probe_interval);
    opened = co_await context_.sessions->Open(*plan_.host, context_.cancel);
  }
  if (!opened.session) {
    report_.outcome = opened.unreachable ? HostOutcome::kUnreachable : HostOutcome::kFailed;
    report_.error = opened.status.message();
    context_.board->MarkHostFailed(report_.host, std::string(ToString(report_.outcome)) + ": " + report_.error);
    co_return false;
  }
  agent_ = std::move(opened.session);
  co_return true;
}

Task<bool> HostRun::Reconnect() {
  OpenedSession opened = co_await context_.sessions->Open(*plan_.host, context_.cancel);
  if (opened.session) agent_ = std::move(opened.session);
  co_return agent_ != nullptr;
}

void HostRun::Emit(DeployEvent event) { context_.listener->OnEvent(event); }

void HostRun::Emit(const StepReport& step) { Emit(StepFinishedEvent{report_.host, &step}); }

void HostRun::Started(const std::string& what) { Emit(StepStartedEvent{report_.host, what}); }

WaitReport HostRun::BeginWait(const std::string& what) {
  return WaitReport([this](const WaitEvent& wait) { Told(wait); }, clock(), report_.host, what);
}

void HostRun::Told(const WaitEvent& wait) {
  Emit(wait);
  const bool ended = wait.phase == WaitPhase::kEnded || wait.phase == WaitPhase::kGaveUp;
  if (!ended || wait.elapsed_ms < 1000 || !context_.writer) return;
  const int64_t run = context_.run_id;
  const std::string host = report_.host, level = wait.phase == WaitPhase::kGaveUp ? "warning" : "info";
  const std::string text = WaitText(wait);
  context_.writer->Post([=](StateStore& s) { return s.RecordEvent(run, host, level, "wait", text); });
}

void HostRun::Event(const std::string& level, const std::string& kind, const std::string& message) {
  Emit(NoteEvent{report_.host, message});
  if (!context_.writer) return;
  const int64_t run = context_.run_id;
  const std::string host = report_.host;
  context_.writer->Post([=](StateStore& s) { return s.RecordEvent(run, host, level, kind, message); });
}

void HostRun::Changed(StepReport report) {
  ++report_.changed;
  Emit(report);
  report_.steps.push_back(std::move(report));
}

void HostRun::FailUnreachable(const std::string& step, const std::string& error) {
  report_.outcome = HostOutcome::kUnreachable;
  report_.error = error;
  Fail(FailedStep(step, false, error));
}

void HostRun::Finish(std::chrono::steady_clock::time_point start) {
  report_.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock().Monotonic() - start).count();
  if (report_.outcome == HostOutcome::kOk && report_.failed > 0) report_.outcome = HostOutcome::kFailed;
  // A stopped host keeps the outcome of its last finished run in the state.
  if (const std::optional<HostStatus> status = RecordedHostStatus(report_.outcome); context_.writer && status) {
    const std::optional<std::string> error =
        report_.error.empty() ? std::nullopt : std::optional<std::string>(report_.error);
    std::string host = report_.host;
    int64_t run = context_.run_id;
    context_.writer->Post([host, status, run, error](StateStore& s) { return s.RecordHostOutcome(host, *status, run, error); });
  }
  Emit(HostFinishedEvent{&report_});
}

void HostRun::MarkRemainingFailed(const Role* failed_role) {
  bool after = false;
  const std::string why = report_.outcome == HostOutcome::kStopped ? "the run was stopped" : "the host failed earlier: " + report_.error;
  for (const Role* role : plan_.roles) {
    if (role == failed_role) after = true;
    if (after) context_.board->MarkFailed(role->name, report_.host, why);
  }
  if (report_.outcome == HostOutcome::kOk) report_.outcome = HostOutcome::kFailed;
}

std::string HostRun::Masked(std::string text) const {
  return context_.secrets ? context_.secrets->Mask(std::move(text)) : text;
}

void HostRun::Fail(StepReport step) {
  ++report_.failed;
  if (report_.error.empty()) report_.error = step.identity + ": " + step.error;
  Emit(step);
  report_.steps.push_back(std::move(step));
}

bool HostRun::Stopping(const std::string& next) {
  if (!context_.cancel || !context_.cancel->cancelled()) return false;
  if (report_.outcome == HostOutcome::kOk) {
    report_.outcome = HostOutcome::kStopped;
    report_.error = "the run was stopped before " + next;
  }
  return true;
}

void HostRun::ConnectionLost(StepReport& step) {
  const bool abandoned = connection_error_.code() == Status::Code::kCancelled;
  report_.outcome = abandoned ? HostOutcome::kStopped : HostOutcome::kUnreachable;
  report_.error = abandoned ? "the run was stopped while " + step.identity + " ran; what it did is checked next time"
                            : connection_error_.message();
  step.error = report_.error;
  context_.board->MarkHostFailed(report_.host, std::string(ToString(report_.outcome)) + ": " + report_.error);
}

// Sends one resource request. A failure of any kind comes back as a failed
// result; a lost connection or an abandoned request also sets
// connection_error_.
Task<agent_protocol::ResourceResult> HostRun::Call(const PlannedStep& step, bool apply) {
  if (!connection_error_.ok()) {  // the session is gone: nothing more is sent on it
    agent_protocol::ResourceResult failed;
    failed.Fail(connection_error_.message());
    co_return failed;
  }
  agent_protocol::ResourceRequest request;
  request.kind = step.kind;
  request.params = step.params;
  request.body = step.body;
  request.apply = apply;
  auto reply = co_await agent_->Resource(std::move(request), clock().Monotonic() + context_.options.step_timeout);
  if (reply.ok()) co_return std::move(reply).value();
  if (IsTransportFailure(reply.status()) || reply.status().code() == Status::Code::kCancelled) {
    connection_error_ = reply.status();
  }
  agent_protocol::ResourceResult failed;
  failed.Fail(reply.status().message());
  co_return failed;
}

void HostRun::TakeUpFrontCredit(const PlannedStep& step, agent_protocol::ResourceResult& outcome) {
  auto credit = up_front_credits_.find(step.Identity());
  if (credit == up_front_credits_.end()) return;
  if (!outcome.failed) {
    for (std::string& difference : credit->second) outcome.differences.push_back(std::move(difference));
    outcome.changed = true;
  }
  up_front_credits_.erase(credit);
}

StepReport HostRun::ToReport(const PlannedStep& step, const agent_protocol::ResourceResult& outcome) {
  StepReport r;
  r.identity = step.Identity();
  r.handler = step.handler;
  r.differences = outcome.differences;
  r.mutating_commands = outcome.MutatingCommands();
  if (!step.secret) r.diff = Masked(outcome.diff);
  for (std::string& difference : r.differences) difference = Masked(std::move(difference));
  if (outcome.failed) {
    r.status = StepStatus::kFailed;
    r.error = Masked(outcome.error);
    r.command = Masked(outcome.failed_command);
    r.output = Masked(outcome.output);
  } else if (outcome.changed) {
    r.status = context_.options.check ? StepStatus::kWouldChange : StepStatus::kChanged;
  } else {
    r.status = StepStatus::kOk;
  }
  return r;
}

void HostRun::Record(const PlannedStep& step, StepStatus status, bool changed, int64_t started,
                     const std::string& summary) {
  if (!context_.writer) return;
  StepRecord record;
  record.run_id = context_.run_id;
  record.host = report_.host;
  record.role = step.role->name;
  record.step_id = step.StepId();
  record.input_hash = step.input_hash;
  record.status = status;
  record.changed = changed;
  record.started_at = started;
  record.finished_at = clock().NowMs();
  record.output_summary = std::string(Utf8Prefix(summary, 2000));
  context_.writer->Post([record](StateStore& s) { return s.RecordStep(record); });
}

// A chunk of a transfer (a copy's upload); a lost connection ends the session.
Task<Status> HostRun::SendChunk(agent_protocol::UploadChunkRequest request) {
  Status sent = co_await agent_->UploadChunk(std::move(request), clock().Monotonic() + std::chrono::minutes(5));
  if (IsTransportFailure(sent) || sent.code() == Status::Code::kCancelled) connection_error_ = sent;
  co_return sent;
}

Task<bool> HostRun::RunStep(const PlannedStep& step, bool& role_changed) {
  const int64_t started = clock().NowMs();  // a run of steps installed together before it counts as its time
  const bool check = context_.options.check;
  if (!check && !co_await FindStepKind(step.kind).BeforeStep(*this, plan_, step)) co_return false;
  Emit(StepStartedEvent{report_.host, step.Identity()});
  const Owed owed = OwedBy(step);
  const bool maintenance = step.step->maintenance;
  agent_protocol::ResourceResult outcome;
  if (!check && (!owed.empty() || maintenance)) {
    // Check first: the intents are recorded, and a maintenance step's
    // silence opened, only for a change about to be made.
    outcome = co_await Call(step, false);
    if (!outcome.failed && outcome.changed) {
      if (maintenance) {
        const std::string why = "maintenance: " + step.Identity();
        co_await NodeGoingDown(why, MaintenanceLasts(step));
      }
      if (!owed.empty() && !co_await OpenIntents(owed, step)) co_return false;
      outcome = co_await Call(step, true);
    }
  } else {
    outcome = co_await Call(step, !check);
  }
  if (!check) outcome = co_await FindStepKind(step.kind).AfterCall(*this, step, std::move(outcome));
  if (!check) TakeUpFrontCredit(step, outcome);
  StepReport r = ToReport(step, outcome);
  if (!connection_error_.ok()) {
    ConnectionLost(r);
    Fail(std::move(r));
    co_return false;
  }
  if (r.status == StepStatus::kFailed) {
    Record(step, StepStatus::kFailed, outcome.changed, started, r.error + "\n" + r.output);
    Fail(std::move(r));
    co_return false;
  }
  const bool changed = r.status != StepStatus::kOk;
  if (changed) {
    role_changed = true;
    ++report_.changed;
    if (check) {
      for (const auto& entry : owed) notified_in_plan_.emplace(entry.second->Identity(), step.Identity());  // the first notifier
    }
  } else {
    ++report_.ok;
  }
  Record(step, changed ? StepStatus::kChanged : StepStatus::kOk, changed, started, Join(r.differences, "; "));
  if (!check && outcome.has_backup && !step.secret && context_.writer) {
    std::string host = report_.host, path = step.params.value("path", std::string());
    int64_t run = context_.run_id;
    // Masked with every secret the run knows: a file not declared secret
    // may still have held one before clusterctl took it over.
    std::string backup = Masked(std::move(outcome.backup));
    context_.writer->Post([=](StateStore& s) { return s.SaveFileBackup(run, host, path, backup); });
  }
  Emit(r);
  report_.steps.push_back(std::move(r));
  co_return true;
}

// Waits until each role is done on every host of its group; `who` names
// the waiter while it waits, `failed_prefix` + "(waits for R)" its failure.
Task<bool> HostRun::WaitForRoles(const std::vector<RoleWait>& waits, const std::string& who,
                                 const std::string& failed_prefix) {
  for (const RoleWait& wait : waits) {
    Emit(StepStartedEvent{report_.host, who + " (waiting for " + wait.role + ")"});
    std::string role_name = wait.role;
    std::vector<std::string> members = context_.inventory->MembersOf(wait.group);
    WaitReport waiting = BeginWait(wait.role + " on the " + wait.group + " hosts (for " + who + ")");
    Status ready = co_await context_.board->WaitFor(std::move(role_name), std::move(members), boost::asio::use_awaitable);
    waiting.Ended();  // a failure of the role is the waiter's failure, reported below
    if (!ready.ok()) {
      if (Stopping(who)) co_return false;
      Fail(FailedStep(failed_prefix + "(waits for " + wait.role + ")", false, ready.message()));
      co_return false;
    }
  }
  co_return true;
}

Task<bool> HostRun::WaitBeforeStep(const PlannedStep& step, std::set<std::string>& waited) {
  if (!waited.insert(step.step->name).second) co_return true;
  const std::vector<RoleWait> waits = step.role->WaitsBefore(step.step->name);
  if (waits.empty()) co_return true;
  const std::string failed_prefix = step.role->name + "/";
  co_return co_await WaitForRoles(waits, step.role->name, failed_prefix);
}

Task<bool> HostRun::RunRole(const Role& role) {
  const std::string failed_prefix = role.name + "/";  // named: no temporaries inside co_await (g++ 12)
  if (Stopping(role.name)) co_return false;
  if (!co_await RunUpFront(role)) co_return false;
  const std::vector<RoleWait> first_waits = role.WaitsBefore("");
  if (!co_await WaitForRoles(first_waits, role.name, failed_prefix)) co_return false;
  std::set<std::string> waited;
  bool role_changed = false;
  // Check mode: a follow-up of this role would run (its name, "" when none);
  // role_changed: an earlier step of this role would change.
  std::string follow_up_in_plan;
  for (const PlannedStep& step : plan_.steps) {
    if (step.role != &role) continue;
    if (!co_await WaitBeforeStep(step, waited)) co_return false;
    if (step.skipped) {
      ++report_.skipped;
      report_.steps.push_back(Settled(step, StepStatus::kSkipped, true, {"when is false"}));
      Record(step, StepStatus::kSkipped, false, clock().NowMs(), "");
      continue;
    }
    const StepKind& kind = FindStepKind(step.kind);
    if (context_.options.check && kind.IsPrecondition() && (!follow_up_in_plan.empty() || role_changed)) {
      // A precondition of the node as this role's earlier changes (or its
      // follow-up) leave it: plan does not make them, so it cannot check it.
      ++report_.skipped;
      report_.steps.push_back(Settled(step, StepStatus::kSkipped, true,
                                      {!follow_up_in_plan.empty() ? "checked after " + follow_up_in_plan
                                                                  : "checked after the role's earlier changes"}));
      continue;
    }
    if (Stopping(step.Identity())) co_return false;
    if (kind.IsFollowUp()) {
      if (!co_await kind.RunFollowUp(*this, step)) co_return false;
      follow_up_in_plan = context_.options.check && HandlerDue(step) ? kind.FollowUpName() : "";
      continue;
    }
    // A precondition is checked again whenever the host is contacted: what it
    // guards may change in this run, and the node may have changed since it
    // last held (a kernel installed by hand). A host with nothing to change
    // is not contacted for it.
    if (!context_.options.verify && !kind.IsPrecondition() && RecordedCurrent(step, report_.host, context_)) {
      ++report_.ok;
      report_.steps.push_back(Settled(step, StepStatus::kOk, false));
      continue;
    }
    if (!co_await RunStep(step, role_changed)) co_return false;
  }
  // Every due handler's waits first, so no handler of the role runs
  // before all of them may.
  for (const PlannedStep& handler : plan_.handlers) {
    if (handler.role != &role || handler.skipped) continue;
    if (!co_await WaitBeforeHandler(handler)) co_return false;
  }
  for (const PlannedStep& handler : plan_.handlers) {
    if (handler.role != &role || handler.skipped) continue;
    if (Stopping(handler.Identity())) co_return false;
    if (!co_await RunHandler(handler)) co_return false;
  }
  co_return true;
}

Task<HostReport> ExecuteHost(const HostPlan& plan, DeployContext& context, std::unique_ptr<AgentSession> session) {
  HostRun run(plan, context, std::move(session));
  co_return co_await run.Run();
}

}  // namespace clusterctl
