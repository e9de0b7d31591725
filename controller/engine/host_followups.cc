// What a host's changed steps owe: intents (recorded before the change),
// handlers (a restart runs exactly once, even across a crash) and reboots
// (done once a new boot id is seen).
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/use_awaitable.hpp>

#include "common/strings.h"
#include "controller/engine/host_run.h"
#include "controller/remote/sleep.h"

namespace clusterctl {
namespace {

StepReport FollowUpReport(const std::string& target, const std::string& status, bool handler, std::string why) {
  StepReport r;
  r.identity = target;
  r.status = status;
  r.handler = handler;
  r.differences = {std::move(why)};
  return r;
}

// A reboot step without `after` follows any earlier change in its role.
bool RebootFollows(const PlannedStep& reboot, const PlannedStep& changed) {
  const nlohmann::json& after = reboot.params.contains("after") ? reboot.params["after"] : nlohmann::json();
  if (!after.is_array()) return true;
  for (const nlohmann::json& name : after) {
    if (name.is_string() && name.get<std::string>() == changed.step->name) return true;
  }
  return false;
}

}  // namespace

// The follow-ups a step owes when it changes something: its handlers, and
// the role's reboot step if there is one after it (with the reboot's
// `after: [step names]`, only when the step is one of those).
HostRun::Owed HostRun::OwedBy(const PlannedStep& step) const {
  Owed owed;
  for (const std::string& notify : step.step->notify) {
    const HandlerRef ref = ParseHandlerRef(notify, step.role->name);
    // Another role's handler counts only where that role runs too.
    const PlannedStep* target = plan_.FindHandler(ref.role, ref.handler);
    if (target && !target->skipped) owed.emplace_back("handler", target->Identity());
  }
  bool after = false;
  for (const PlannedStep& s : plan_.steps) {
    if (&s == &step) after = true;
    if (after && s.role == step.role && s.kind == "reboot" && !s.skipped) {
      if (RebootFollows(s, step)) owed.emplace_back("reboot", s.Identity());
      break;
    }
  }
  return owed;
}

Task<bool> HostRun::OpenIntents(const Owed& owed, const PlannedStep& cause) {
  // No structured bindings here: g++ 12 miscompiles them in coroutines
  // when a lambda captures them.
  for (const auto& entry : owed) {
    const std::string kind = entry.first;
    const std::string target = entry.second;
    if (intents_.count(target)) continue;
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
  }
  co_return true;
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
  StepReport r = FollowUpReport(target, "would-change", true,
                                owed ? "owed from an earlier run" : "notified by " + notified->second);
  if (notified != notified_in_plan_.end()) notified_in_plan_.erase(notified);  // reported once
  ++report_.changed;
  Emit(r);
  report_.steps.push_back(std::move(r));
  co_return true;
}

// A service restart owed by an intent runs exactly once: the unit's
// InvocationID before the restart is recorded first; on a resumed run a
// different InvocationID of a running unit means the restart already
// happened (`done`). A new invocation still starting or stopping (the
// interrupted run's restart in flight: a Type=notify daemon can take
// seconds) is looked at again until it settles. A new invocation that is
// not running means the earlier restart failed: the restart is still owed.
Task<bool> HostRun::RestartAlreadyDone(const PlannedStep& handler, Intent& intent, bool& done) {
  done = false;
  std::string before;
  if (intent.detail.is_object() && intent.detail.contains("invocation_before") &&
      intent.detail["invocation_before"].is_string()) {
    before = intent.detail["invocation_before"].get<std::string>();
  }
  const auto settle_deadline = std::chrono::steady_clock::now() + context_.options.restart_settle_timeout;
  std::string current;
  while (true) {
    const agent_protocol::ResourceResult probe = co_await Call(handler, false);
    if (!connection_error_.ok()) co_return true;  // the handler's own call reports it, without sending
    current = agent_protocol::ExtraString(probe, "invocation_before");
    const std::string active_state = agent_protocol::ExtraString(probe, "active_state");
    const bool new_invocation = !before.empty() && !current.empty() && current != before;
    if (new_invocation && (active_state == "active" || active_state == "reloading")) {
      done = true;
      co_return true;
    }
    const bool settling = active_state == "activating" || active_state == "deactivating";
    if (!new_invocation || !settling || std::chrono::steady_clock::now() >= settle_deadline) break;
    co_await SleepFor(context_.options.restart_settle_interval);
  }
  nlohmann::json detail = {{"invocation_before", current}};
  Status saved = co_await SaveIntentDetail(intent, std::move(detail));
  if (saved.ok()) co_return true;
  StepReport r = FailedStep(handler.Identity(), true, "cannot record handler progress: " + saved.message());
  Fail(std::move(r));
  co_return false;
}

Task<bool> HostRun::RunHandler(const PlannedStep& handler) {
  if (context_.options.check) co_return co_await PlanHandler(handler);
  const std::string target = handler.Identity();
  if (!intents_.count(target)) co_return true;
  Intent& intent = intents_[target];
  const int64_t started = NowMs();
  Emit(StepStartedEvent{report_.host, target});
  const std::string state = handler.params.value("state", std::string());
  if (handler.kind == "service" && (state == "restarted" || state == "reloaded")) {
    bool done = false;
    if (!co_await RestartAlreadyDone(handler, intent, done)) co_return false;
    if (done) {
      CloseIntent(target);  // the restart happened before the previous run was interrupted
      ++report_.ok;
      StepReport r = FollowUpReport(target, "ok", true, "already done by an interrupted run");
      Emit(r);
      report_.steps.push_back(std::move(r));
      co_return true;
    }
  }
  const agent_protocol::ResourceResult outcome = co_await Call(handler, true);
  StepReport r = ToReport(handler, outcome);
  r.differences.insert(r.differences.begin(), intent.reason);
  if (!connection_error_.ok() || r.status == "failed") {
    if (!connection_error_.ok()) ConnectionLost(r);
    Record(handler, "failed", false, started, r.error);
    Fail(std::move(r));
    co_return false;
  }
  r.status = "changed";
  ++report_.changed;
  Record(handler, "changed", true, started, Join(r.differences, "; "));
  CloseIntent(target);
  Emit(r);
  report_.steps.push_back(std::move(r));
  co_return true;
}

Task<std::string> HostRun::BootId() {
  agent_protocol::ExecRequest request;
  request.argv = {"cat", "/proc/sys/kernel/random/boot_id"};
  auto reply = co_await agent_->Exec(std::move(request), Clock::now() + std::chrono::seconds(30));
  if (!reply.ok() || reply->exit_code != 0) co_return "";
  co_return std::string(Trim(reply->stdout_data));
}

void HostRun::PlanReboot(const PlannedStep& step) {
  const std::string target = step.Identity();
  const bool owed = intents_.count(target) > 0;
  auto notified = notified_in_plan_.find(target);
  if (!owed && notified == notified_in_plan_.end()) {
    ++report_.ok;
    return;
  }
  StepReport r = FollowUpReport(target, "would-change", false,
                                owed ? "reboot owed from an earlier run" : "reboot after " + notified->second);
  ++report_.changed;
  Emit(r);
  report_.steps.push_back(std::move(r));
}

// Reconnects until the node answers with a boot id other than `before`, or
// the step's timeout passes, or the run is stopped.
Task<bool> HostRun::AwaitNewBoot(const PlannedStep& step, const std::string& before, std::string& after) {
  const std::chrono::seconds timeout = step.params.contains("timeout") && step.params["timeout"].is_number_integer()
                                           ? std::chrono::seconds(step.params["timeout"].get<int>())
                                           : context_.options.reboot_timeout;
  const auto deadline = Clock::now() + timeout;
  co_await SleepFor(context_.options.reboot_first_probe);
  while (Clock::now() < deadline) {
    if (Stopping(step.Identity() + " (waiting for the node to come back)")) co_return false;
    OpenedSession opened = co_await context_.sessions->Open(*plan_.host, context_.cancel);
    if (opened.session) {
      agent_ = std::move(opened.session);
      after = co_await BootId();
      if (!after.empty() && after != before) co_return true;
      agent_.reset();
    }
    co_await SleepFor(context_.options.reboot_probe_interval);
  }
  report_.outcome = "unreachable";
  report_.error = "did not come back from the reboot within " + std::to_string(timeout.count()) + " s";
  StepReport r = FailedStep(step.Identity(), false, report_.error);
  Fail(std::move(r));
  co_return false;
}

// reboot: only when a change in its role (recorded as an intent) owes it.
Task<bool> HostRun::RunReboot(const PlannedStep& step) {
  if (context_.options.check) {
    PlanReboot(step);
    co_return true;
  }
  const std::string target = step.Identity();
  if (!intents_.count(target)) {
    ++report_.ok;
    co_return true;
  }
  const int64_t started = NowMs();
  Intent& intent = intents_[target];
  Emit(StepStartedEvent{report_.host, target + " (rebooting)"});
  const std::string before = co_await BootId();
  if (intent.detail.is_object() && intent.detail.contains("boot_before") && intent.detail["boot_before"].is_string() &&
      intent.detail["boot_before"].get<std::string>() != before && !before.empty()) {
    CloseIntent(target);  // an interrupted run already rebooted the node
    ++report_.ok;
    co_return true;
  }
  nlohmann::json detail = {{"boot_before", before}};
  Status saved = co_await SaveIntentDetail(intent, std::move(detail));
  if (!saved.ok()) {
    StepReport r = FailedStep(target, false, "cannot record the reboot's progress: " + saved.message());
    Fail(std::move(r));
    co_return false;
  }
  Status asked = co_await agent_->Reboot(1000, Clock::now() + std::chrono::seconds(30));
  (void)asked;  // the node may go down before it answers; the boot id decides
  agent_.reset();
  std::string after;
  if (!co_await AwaitNewBoot(step, before, after)) co_return false;
  CloseIntent(target);
  ++report_.changed;
  Record(step, "changed", true, started, "rebooted: boot id " + before + " -> " + after);
  StepReport r = FollowUpReport(target, "changed", false,
                                "rebooted (boot id " + before.substr(0, 8) + " -> " + after.substr(0, 8) + ")");
  Emit(r);
  report_.steps.push_back(std::move(r));
  co_return true;
}

// A reboot an earlier run asked for (its boot id recorded) and did not see done.
bool HostRun::RebootInFlight() const {
  for (const auto& entry : intents_) {
    const Intent& intent = entry.second;
    if (intent.kind == "reboot" && intent.detail.is_object() && intent.detail.contains("boot_before")) return true;
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
