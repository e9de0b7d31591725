// What a host's changed steps owe: intents (recorded before the change),
// handlers (a restart runs exactly once, even across a crash: the kind's
// probe, kinds/service_kind.cc) and follow-up steps (a reboot:
// kinds/reboot_kind.cc).
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/use_awaitable.hpp>

#include "common/strings.h"
#include "controller/engine/host_run.h"
#include "controller/remote/sleep.h"

namespace clusterctl {

StepReport FollowUpReport(const std::string& target, StepStatus status, bool handler, std::string why) {
  StepReport r;
  r.identity = target;
  r.status = status;
  r.handler = handler;
  r.differences = {std::move(why)};
  return r;
}

// The follow-ups a step owes when it changes something: its handlers, and
// the role's first follow-up step after it (a reboot), when its kind says
// it follows this step.
HostRun::Owed HostRun::OwedBy(const PlannedStep& step) const {
  Owed owed;
  for (const std::string& notify : step.step->notify) {
    const HandlerRef ref = ParseHandlerRef(notify, step.role->name);
    // Another role's handler counts only where that role runs too.
    const PlannedStep* target = plan_.FindHandler(ref.role, ref.handler);
    if (target && !target->skipped) owed.emplace_back("handler", target);
  }
  bool after = false;
  for (const PlannedStep& s : plan_.steps) {
    if (&s == &step) after = true;
    if (!after || s.role != step.role || s.skipped) continue;
    const StepKind& kind = FindStepKind(s.kind);
    if (!kind.IsFollowUp()) continue;
    if (kind.Follows(s, step)) owed.emplace_back(s.kind, &s);
    break;
  }
  return owed;
}

Task<bool> HostRun::OpenIntents(const Owed& owed, const PlannedStep& cause) {
  // No structured bindings here: g++ 12 miscompiles them in coroutines
  // when a lambda captures them.
  for (const auto& entry : owed) {
    const std::string kind = entry.first;
    const PlannedStep& follow_up = *entry.second;
    const std::string target = follow_up.Identity();
    if (!intents_.count(target) && !co_await OpenIntent(kind, target, cause)) co_return false;
    // Each change tells a handler's kind (again): what it records is what
    // the handler's target was like before the latest change.
    if (kind == "handler" &&
        !co_await FindStepKind(follow_up.kind).HandlerNotified(*this, follow_up, intents_[target])) {
      co_return false;
    }
  }
  co_return true;
}

// Opens (records, durably) the intent `cause` owes `target`.
Task<bool> HostRun::OpenIntent(std::string kind, std::string target, const PlannedStep& cause) {
  std::string host = report_.host;
  int64_t run = context_.run_id;
  std::string reason = "changed by " + cause.Identity();
  auto id = std::make_shared<int64_t>(0);
  // A named function, not a temporary in the co_await: g++ 12 destroys
  // such temporaries twice.
  StateWriter::Write open = [id, run, host, kind, target, reason](StateStore& s) -> Status {
    auto opened = s.OpenIntent(run, host, kind, target, reason);
    if (!opened.ok()) return opened.status();
    *id = *opened;
    return Status::Ok();
  };
  Status committed = co_await context_.writer->Commit(std::move(open), boost::asio::use_awaitable);
  if (!committed.ok()) {
    StepReport r = FailedStep(cause.Identity(), false, "cannot record the follow-up it owes: " + committed.message());
    Fail(std::move(r));
    co_return false;
  }
  intents_[target] = Intent{*id, report_.host, kind, target, reason, nullptr};
  Emit(IntentEvent{report_.host, kind, target, reason, true});
  co_return true;
}

// A coroutine of its own, so that what is owed lives in its frame while
// OpenIntents (which holds a reference to it) runs.
Task<bool> HostRun::OpenIntentsOwedBy(const PlannedStep& step) {
  const Owed owed = OwedBy(step);
  co_return co_await OpenIntents(owed, step);
}

void HostRun::CloseIntent(const std::string& target) {
  auto it = intents_.find(target);
  if (it == intents_.end()) return;
  if (context_.writer) {
    int64_t id = it->second.id, run = context_.run_id;
    context_.writer->Post([id, run](StateStore& s) { return s.CloseIntent(id, run); });
  }
  Emit(IntentEvent{report_.host, it->second.kind, target, it->second.reason, false});
  intents_.erase(it);
}

// Records the intent's progress durably before the action it describes.
Task<Status> HostRun::SaveIntentDetail(Intent& intent, nlohmann::json detail) {
  int64_t id = intent.id;
  StateWriter::Write save = [id, detail](StateStore& s) { return s.SetIntentDetail(id, detail); };
  Status saved = co_await context_.writer->Commit(std::move(save), boost::asio::use_awaitable);
  if (saved.ok()) intent.detail = std::move(detail);
  co_return saved;
}

// Check mode: a handler is reported when something notified it or an
// earlier run left it owed.
Task<bool> HostRun::PlanHandler(const PlannedStep& handler) {
  const std::string target = handler.Identity();
  const bool owed = intents_.count(target) > 0;
  auto notified = notified_in_plan_.find(target);
  if (!owed && notified == notified_in_plan_.end()) co_return true;
  StepReport r = FollowUpReport(target, StepStatus::kWouldChange, true,
                                owed ? "owed from an earlier run" : "notified by " + notified->second);
  if (notified != notified_in_plan_.end()) notified_in_plan_.erase(notified);  // reported once
  ++report_.changed;
  Emit(r);
  report_.steps.push_back(std::move(r));
  co_return true;
}

Task<bool> HostRun::RunHandler(const PlannedStep& handler) {
  if (context_.options.check) co_return co_await PlanHandler(handler);
  const std::string target = handler.Identity();
  if (!intents_.count(target)) co_return true;
  Intent& intent = intents_[target];
  const int64_t started = clock().NowMs();
  Emit(StepStartedEvent{report_.host, target});
  {
    const OwedProbe probe = co_await FindStepKind(handler.kind).HandlerAlreadyDone(*this, handler, intent);
    if (probe == OwedProbe::kFailed) co_return false;
    if (probe == OwedProbe::kDone) {
      CloseIntent(target);  // restarted by an interrupted run, or started after the change
      ++report_.ok;
      StepReport r = FollowUpReport(target, StepStatus::kOk, true, "not needed: started since the change that owed it");
      Emit(r);
      report_.steps.push_back(std::move(r));
      co_return true;
    }
  }
  const agent_protocol::ResourceResult outcome = co_await Call(handler, true);
  StepReport r = ToReport(handler, outcome);
  r.differences.insert(r.differences.begin(), intent.reason);
  if (!connection_error_.ok() || r.status == StepStatus::kFailed) {
    if (!connection_error_.ok()) ConnectionLost(r);
    Record(handler, StepStatus::kFailed, false, started, r.error);
    Fail(std::move(r));
    co_return false;
  }
  r.status = StepStatus::kChanged;
  ++report_.changed;
  Record(handler, StepStatus::kChanged, true, started, Join(r.differences, "; "));
  CloseIntent(target);
  Emit(r);
  report_.steps.push_back(std::move(r));
  co_return true;
}

Intent* HostRun::OwedIntent(const std::string& target) {
  auto it = intents_.find(target);
  return it == intents_.end() ? nullptr : &it->second;
}

std::string HostRun::NotifiedInPlan(const std::string& target) const {
  auto it = notified_in_plan_.find(target);
  return it == notified_in_plan_.end() ? "" : it->second;
}

bool HostRun::FollowUpInFlight() const {
  for (const auto& entry : intents_) {
    if (FindStepKind(entry.second.kind).MayKeepNodeDown(entry.second)) return true;
  }
  return false;
}

bool HostRun::HandlerDue(const PlannedStep& handler) const {
  const std::string target = handler.Identity();
  return intents_.count(target) > 0 || notified_in_plan_.count(target) > 0;
}

// A handler with waits_for (restart slurmd only once slurmctld has
// restarted) waits, when it is due, for those roles on the other hosts.
Task<bool> HostRun::WaitBeforeHandler(const PlannedStep& handler) {
  if (handler.step->waits_for.empty() || !HandlerDue(handler) || context_.options.check) co_return true;
  const std::string who = handler.Identity();
  const std::string failed_prefix = who + " ";
  co_return co_await WaitForRoles(handler.step->waits_for, who, failed_prefix);
}

// Handlers of roles that already ran on this host, owed by a later role's
// change (cross-role notify) or left by an interrupted run.
Task<bool> HostRun::RunLeftoverHandlers() {
  for (const PlannedStep& handler : plan_.handlers) {
    if (handler.skipped || !HandlerDue(handler)) continue;
    if (Stopping(handler.Identity())) co_return false;
    if (!co_await WaitBeforeHandler(handler)) co_return false;
    if (!co_await RunHandler(handler)) co_return false;
  }
  co_return true;
}

}  // namespace clusterctl
