// service: a restart (or reload) handler owed by an intent runs exactly
// once. The unit's InvocationID before the restart is recorded first; on a
// resumed run a different InvocationID of a running unit means the restart
// already happened. A new invocation still starting or stopping (the
// interrupted run's restart in flight: a Type=notify daemon can take
// seconds) is looked at again until it settles. A new invocation that is
// not running means the earlier restart failed: the restart is still owed.
#include "controller/engine/kinds/step_kind.h"
#include "controller/remote/sleep.h"

namespace clusterctl {
namespace {

std::string InvocationBefore(const Intent& intent) {
  if (intent.detail.is_object() && intent.detail.contains("invocation_before") &&
      intent.detail["invocation_before"].is_string()) {
    return intent.detail["invocation_before"].get<std::string>();
  }
  return "";
}

class ServiceKind final : public StepKind {
 public:
  Task<OwedProbe> HandlerAlreadyDone(KindHost& host, const PlannedStep& handler, Intent& intent) const override {
    const std::string state = handler.params.value("state", std::string());
    if (state != "restarted" && state != "reloaded") co_return OwedProbe::kNotDone;
    const std::string before = InvocationBefore(intent);
    const auto settle_deadline = host.clock().Monotonic() + host.options().restart_settle_timeout;
    std::string current;
    while (true) {
      const agent_protocol::ResourceResult probe = co_await host.transport().Call(handler, false);
      if (host.transport().SessionLost()) co_return OwedProbe::kNotDone;  // the handler's own call reports it, without sending
      const agent_protocol::UnitState unit = probe.unit.value_or(agent_protocol::UnitState{});
      current = unit.invocation_before;
      const bool new_invocation = !before.empty() && !current.empty() && current != before;
      if (new_invocation && (unit.active_state == "active" || unit.active_state == "reloading")) {
        co_return OwedProbe::kDone;
      }
      const bool settling = unit.active_state == "activating" || unit.active_state == "deactivating";
      if (!new_invocation || !settling || host.clock().Monotonic() >= settle_deadline) break;
      co_await SleepFor(host.clock(), host.options().restart_settle_interval);
    }
    nlohmann::json detail = {{"invocation_before", current}};
    Status saved = co_await host.intents().SaveIntentDetail(intent, std::move(detail));
    if (saved.ok()) co_return OwedProbe::kNotDone;
    host.report().Fail(FailedStep(handler.Identity(), true, "cannot record handler progress: " + saved.message()));
    co_return OwedProbe::kFailed;
  }
};

const StepKindRegistration kService("service", std::make_unique<ServiceKind>());

}  // namespace
}  // namespace clusterctl
