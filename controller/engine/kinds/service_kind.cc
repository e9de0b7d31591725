// service: a restart (or reload) handler owed by an intent runs only when
// the unit still runs the process it ran when the change that owed it was
// made. At each such change (before it is made) the unit's InvocationID is
// recorded, or "not running" when it had no process then (its package not
// installed yet, or stopped). A running unit with another InvocationID when
// the handler is due started after the change, so it read the changed
// files: the restart is not needed. That covers a unit whose package starts
// it after its configuration was written (a first deploy's slurmctld), one a
// service step of the same run starts, and a restart an interrupted run
// already made (the InvocationID is recorded again just before the restart).
// A new invocation still starting or stopping (the interrupted run's restart
// in flight: a Type=notify daemon can take seconds) is looked at again until
// it settles. A new invocation that is not running means the earlier
// restart failed: the restart is still owed; so does a unit whose files
// changed on disk since it started (a handler with daemon_reload). `plan`
// cannot know whether a package's maintainer script will start its unit,
// so it shows every owed restart (docs/roles.md, Handlers and follow-ups).
#include "controller/engine/kinds/step_kind.h"
#include "controller/remote/sleep.h"

namespace clusterctl {
namespace {

// What "invocation_before" holds for a unit with no process at the change.
constexpr const char* kNotRunning = "not running";

std::string InvocationBefore(const Intent& intent) {
  if (intent.detail.is_object() && intent.detail.contains("invocation_before") &&
      intent.detail["invocation_before"].is_string()) {
    return intent.detail["invocation_before"].get<std::string>();
  }
  return "";
}

bool IsRestartHandler(const PlannedStep& handler) {
  const std::string state = handler.params.value("state", std::string());
  return state == "restarted" || state == "reloaded";
}

// The unit's process as a change meets it: its InvocationID while it runs
// (one that is starting may have read the old files), kNotRunning when it
// has none. Empty for a running unit without one (systemd before 232): the
// restart then always runs.
std::string InvocationAtChange(const agent_protocol::UnitState& unit) {
  const std::string& state = unit.active_state;
  if (state == "active" || state == "activating" || state == "reloading") return unit.invocation_before;
  return kNotRunning;
}

Task<bool> Record(KindHost& host, const PlannedStep& handler, Intent& intent, std::string invocation) {
  if (InvocationBefore(intent) == invocation) co_return true;
  nlohmann::json detail = {{"invocation_before", std::move(invocation)}};
  Status saved = co_await host.intents().SaveIntentDetail(intent, std::move(detail));
  if (saved.ok()) co_return true;
  host.report().Fail(FailedStep(handler.Identity(), true, "cannot record handler progress: " + saved.message()));
  co_return false;
}

class ServiceKind final : public StepKind {
 public:
  Task<bool> HandlerNotified(KindHost& host, const PlannedStep& handler, Intent& intent) const override {
    if (!IsRestartHandler(handler)) co_return true;
    const agent_protocol::ResourceResult probe = co_await host.transport().Call(handler, false);
    if (host.transport().SessionLost()) co_return true;  // the change's own call reports it, without sending
    // A probe that failed records "" (unknown): the restart stays owed.
    const std::string at_change = probe.failed || !probe.unit ? "" : InvocationAtChange(*probe.unit);
    co_return co_await Record(host, handler, intent, at_change);
  }

  Task<OwedProbe> HandlerAlreadyDone(KindHost& host, const PlannedStep& handler, Intent& intent) const override {
    if (!IsRestartHandler(handler)) co_return OwedProbe::kNotDone;
    const std::string before = InvocationBefore(intent);
    const auto settle_deadline = host.clock().Monotonic() + host.options().restart_settle_timeout;
    std::string current;
    while (true) {
      const agent_protocol::ResourceResult probe = co_await host.transport().Call(handler, false);
      if (host.transport().SessionLost()) co_return OwedProbe::kNotDone;  // the handler's own call reports it, without sending
      const agent_protocol::UnitState unit = probe.unit.value_or(agent_protocol::UnitState{});
      current = unit.invocation_before;
      const bool new_invocation = !before.empty() && !current.empty() && current != before;
      // Beyond the restart itself, the check may find unit files changed
      // on disk (a handler with daemon_reload): the unit started before
      // they were read, so the handler still runs.
      const bool only_the_restart = probe.differences.size() <= 1;
      if (new_invocation && only_the_restart && (unit.active_state == "active" || unit.active_state == "reloading")) {
        co_return OwedProbe::kDone;
      }
      const bool settling = unit.active_state == "activating" || unit.active_state == "deactivating";
      if (!new_invocation || !settling || host.clock().Monotonic() >= settle_deadline) break;
      co_await SleepFor(host.clock(), host.options().restart_settle_interval);
    }
    co_return co_await Record(host, handler, intent, current) ? OwedProbe::kNotDone : OwedProbe::kFailed;
  }
};

const StepKindRegistration kService("service", std::make_unique<ServiceKind>());

}  // namespace
}  // namespace clusterctl
