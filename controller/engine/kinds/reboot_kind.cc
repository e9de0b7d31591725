// reboot: carried out by the controller. A change in its role (with
// `after: [step names]`, only of those steps) owes it, recorded as an
// intent before the change; the controller records the node's boot id,
// asks the agent to reboot, and reconnects until it sees a new boot id. An
// interrupted run's reboot is recognised by the boot id it recorded.
#include "common/strings.h"
#include "controller/engine/kinds/step_kind.h"
#include "controller/remote/sleep.h"

namespace clusterctl {
namespace {

Task<std::string> BootId(KindHost& host) {
  agent_protocol::ExecRequest request;
  request.argv = {"cat", "/proc/sys/kernel/random/boot_id"};
  auto reply = co_await host.transport().agent().Exec(std::move(request), host.clock().Monotonic() + std::chrono::seconds(30));
  if (!reply.ok() || reply->exit_code != 0) co_return "";
  co_return std::string(Trim(reply->stdout_data));
}

// The boot id an interrupted run recorded before asking for the reboot.
std::optional<std::string> BootBefore(const Intent& intent) {
  if (intent.detail.is_object() && intent.detail.contains("boot_before") && intent.detail["boot_before"].is_string()) {
    return intent.detail["boot_before"].get<std::string>();
  }
  return std::nullopt;
}

class RebootKind final : public StepKind {
 public:
  bool IsFollowUp() const override { return true; }
  std::string FollowUpName() const override { return "the reboot"; }

  // Without `after`, any earlier change in its role owes it.
  bool Follows(const PlannedStep& self, const PlannedStep& changed) const override {
    const nlohmann::json& after = self.params.contains("after") ? self.params["after"] : nlohmann::json();
    if (!after.is_array()) return true;
    for (const nlohmann::json& name : after) {
      if (name.is_string() && name.get<std::string>() == changed.step->name) return true;
    }
    return false;
  }

  // A reboot an earlier run asked for (its boot id recorded) and did not see done.
  bool MayKeepNodeDown(const Intent& intent) const override {
    return intent.detail.is_object() && intent.detail.contains("boot_before");
  }

  Task<bool> RunFollowUp(KindHost& host, const PlannedStep& step) const override {
    const std::string target = step.Identity();
    if (host.options().check) {
      ReportInPlan(host, target);
      co_return true;
    }
    Intent* intent = host.intents().OwedIntent(target);
    if (!intent) {
      host.report().CountOk();
      co_return true;
    }
    const int64_t started = host.clock().NowMs();
    host.report().Started(target + " (rebooting)");
    const std::string before = co_await BootId(host);
    const std::optional<std::string> recorded = BootBefore(*intent);
    if (recorded && *recorded != before && !before.empty()) {
      host.intents().CloseIntent(target);  // an interrupted run already rebooted the node
      host.report().CountOk();
      co_return true;
    }
    nlohmann::json detail = {{"boot_before", before}};
    Status saved = co_await host.intents().SaveIntentDetail(*intent, std::move(detail));
    if (!saved.ok()) {
      host.report().Fail(FailedStep(target, false, "cannot record the reboot's progress: " + saved.message()));
      co_return false;
    }
    co_await host.NodeGoingDown("rebooting " + step.Identity(), Timeout(host, step));
    Status asked = co_await host.transport().agent().Reboot(1000, host.clock().Monotonic() + std::chrono::seconds(30));
    (void)asked;  // the node may go down before it answers; the boot id decides
    host.transport().Disconnect();
    std::string after;
    if (!co_await AwaitNewBoot(host, step, before, after)) co_return false;
    host.intents().CloseIntent(target);
    host.report().Record(step, StepStatus::kChanged, true, started, "rebooted: boot id " + before + " -> " + after);
    host.report().Changed(FollowUpReport(target, StepStatus::kChanged, false,
                              "rebooted (boot id " + before.substr(0, 8) + " -> " + after.substr(0, 8) + ")"));
    co_return true;
  }

 private:
  // Check mode: reported when a change notified it or an earlier run left it owed.
  static void ReportInPlan(KindHost& host, const std::string& target) {
    const bool owed = host.intents().OwedIntent(target) != nullptr;
    const std::string notifier = host.intents().NotifiedInPlan(target);
    if (!owed && notifier.empty()) {
      host.report().CountOk();
      return;
    }
    host.report().Changed(FollowUpReport(target, StepStatus::kWouldChange, false, owed ? "reboot owed from an earlier run" : "reboot after " + notifier));
  }

  // The step's `timeout`, else the run's reboot timeout.
  static std::chrono::seconds Timeout(KindHost& host, const PlannedStep& step) {
    return step.Timeout().value_or(host.options().reboot_timeout);
  }

  // Reconnects until the node answers with a boot id other than `before`,
  // or the step's timeout passes, or the run is stopped.
  static Task<bool> AwaitNewBoot(KindHost& host, const PlannedStep& step, const std::string& before, std::string& after) {
    const std::chrono::seconds timeout = Timeout(host, step);
    const auto deadline = host.clock().Monotonic() + timeout;
    WaitReport wait = host.report().BeginWait("the node to come back from " + step.Identity() + " (a new boot id)");
    co_await SleepFor(host.clock(), host.options().reboot_first_probe);
    while (host.clock().Monotonic() < deadline) {
      if (host.report().Stopping(step.Identity() + " (waiting for the node to come back)")) co_return false;
      if (co_await host.transport().Reconnect()) {
        after = co_await BootId(host);
        if (!after.empty() && after != before) co_return true;
        host.transport().Disconnect();
        wait.Still("it answers with the boot id it had before");
      } else {
        wait.Still("it does not answer yet");
      }
      co_await SleepFor(host.clock(), host.options().reboot_probe_interval);
    }
    const std::string missed = "did not come back from the reboot within " + std::to_string(timeout.count()) + " s";
    wait.GaveUp(missed);
    host.report().FailUnreachable(step.Identity(), missed);
    co_return false;
  }
};

const StepKindRegistration kReboot("reboot", std::make_unique<RebootKind>());

}  // namespace
}  // namespace clusterctl
