// reboot: carried out by the controller. A change in its role (with
// `after: [step names]`, only of those steps) owes it, recorded as an
// intent before the change; the controller records the node's boot id,
// asks the agent to reboot, and reconnects until it sees a new boot id. An
// interrupted run's reboot is recognised by the boot id it recorded.
//
// A node that does not come back within the step's timeout (hung in its
// firmware, a kernel that panics at boot) is power-cycled through its BMC
// (node_power.h), at most `reboot_power_cycle_attempts` times (the host's
// variable, planned into the step as `power_cycle_attempts`; 0: never), and
// waited for again; each cycle is an event of the run (history --run N). A
// host without a `bmc` fails as before, saying that none is configured.
#include "common/strings.h"
#include "controller/catalog/deploy_variables.h"
#include "controller/catalog/template.h"
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

// The power cycles the step allows (its planned `power_cycle_attempts`).
int PowerCycleAttempts(const PlannedStep& step) {
  const auto it = step.params.find("power_cycle_attempts");
  return it != step.params.end() && it->is_number_integer() ? it->get<int>() : 0;
}

enum class Back { kBack, kNotBack, kStopped };

class RebootKind final : public StepKind {
 public:
  // The host's reboot_power_cycle_attempts (its declared default unless the
  // inventory sets it) becomes the step's.
  void Plan(KindPlanning& planning, nlohmann::json& params, PlannedStep& /*planned*/) const override {
    const nlohmann::json* set = LookupName(planning.stack, kRebootPowerCycleAttempts);
    params["power_cycle_attempts"] =
        set && set->is_number_integer() ? *set : DeployVariables().at(kRebootPowerCycleAttempts).default_value;
  }

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
    int cycles = 0;
    if (!co_await AwaitNewBoot(host, step, before, after, cycles)) co_return false;
    host.intents().CloseIntent(target);
    const std::string cycled = cycles == 0 ? "" : ", after a power cycle through its BMC " + host.host().bmc->address;
    host.report().Record(step, StepStatus::kChanged, true, started,
                         "rebooted: boot id " + before + " -> " + after + cycled);
    host.report().Changed(FollowUpReport(target, StepStatus::kChanged, false,
                              "rebooted (boot id " + before.substr(0, 8) + " -> " + after.substr(0, 8) + ")" + cycled));
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

  // Waits for a boot id other than `before`; a node not back within the
  // step's timeout is power-cycled through its BMC and waited for again,
  // while the step allows another cycle (`cycles`: those done). False: the
  // host failed unreachable (said why) or the run is stopping.
  static Task<bool> AwaitNewBoot(KindHost& host, const PlannedStep& step, const std::string& before,
                                 std::string& after, int& cycles) {
    const std::string seconds = std::to_string(Timeout(host, step).count());
    std::string what = "the node to come back from " + step.Identity() + " (a new boot id)";
    for (;;) {
      WaitReport wait = host.report().BeginWait(what);
      const Back back = co_await PollNewBoot(host, step, before, after, wait);
      if (back != Back::kNotBack) co_return back == Back::kBack;
      const std::string missed = cycles == 0
          ? "did not come back from the reboot within " + seconds + " s"
          : "did not come back within " + seconds + " s of its power cycle through its BMC " + host.host().bmc->address;
      if (const std::string refused = NoPowerCycle(host, step, cycles); !refused.empty()) {
        wait.GaveUp(missed);
        host.report().FailUnreachable(step.Identity(), missed + refused);
        co_return false;
      }
      const std::string bmc = host.host().bmc->address;
      wait.GaveUp("power cycle through its BMC " + bmc);
      const PowerResult cycled = co_await host.power()->Cycle(host.host());
      ++cycles;
      const std::string done = "power cycle through its BMC " + bmc + " (" + host.host().name + " " + missed + ")";
      if (!cycled.ok) {
        host.report().Event("error", "power", done + " failed: " + cycled.message);
        host.report().FailUnreachable(step.Identity(), missed + "; the power cycle through its BMC " + bmc +
                                                           " failed: " + cycled.message);
        co_return false;
      }
      host.report().Event("warning", "power", done + ": " + cycled.message);
      what = "the node to come back from its power cycle (a new boot id)";
    }
  }

  // Why the node is not power-cycled (again), said after what it missed; ""
  // when it is.
  static std::string NoPowerCycle(KindHost& host, const PlannedStep& step, int cycles) {
    const int attempts = PowerCycleAttempts(step);
    if (attempts == 0) return " (" + std::string(kRebootPowerCycleAttempts) + " is 0: not power-cycled)";
    if (cycles >= attempts) {
      return " (" + std::string(kRebootPowerCycleAttempts) + " is " + std::to_string(attempts) + ": not power-cycled again)";
    }
    if (!host.host().bmc) return "; no BMC is configured for " + host.host().name + " (inventory: bmc), so it was not power-cycled";
    if (!host.power()) return "; this run reaches no BMC, so it was not power-cycled";
    return "";
  }

  // Reconnects until the node answers with a boot id other than `before`,
  // or the step's timeout passes, or the run is stopped.
  static Task<Back> PollNewBoot(KindHost& host, const PlannedStep& step, const std::string& before, std::string& after,
                                WaitReport& wait) {
    const auto deadline = host.clock().Monotonic() + Timeout(host, step);
    co_await SleepFor(host.clock(), host.options().reboot_first_probe);
    while (host.clock().Monotonic() < deadline) {
      if (host.report().Stopping(step.Identity() + " (waiting for the node to come back)")) co_return Back::kStopped;
      if (co_await host.transport().Reconnect()) {
        after = co_await BootId(host);
        if (!after.empty() && after != before) co_return Back::kBack;
        host.transport().Disconnect();
        wait.Still("it answers with the boot id it had before");
      } else {
        wait.Still("it does not answer yet");
      }
      co_await SleepFor(host.clock(), host.options().reboot_probe_interval);
    }
    co_return Back::kNotBack;
  }
};

const StepKindRegistration kReboot("reboot", std::make_unique<RebootKind>());

}  // namespace
}  // namespace clusterctl
