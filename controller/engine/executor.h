// Executor: brings one host to its plan, over its agent session.
//
// The resume model (docs/state.md, DESIGN section 5):
//  - a step whose last recorded result is ok with the same input hash is not
//    checked again (unless --verify); a host with no such step and no owed
//    follow-up is not contacted at all;
//  - a follow-up (a handler, a reboot) is recorded as an open intent, durably,
//    before the change that owes it is applied, and closed only once done;
//  - a service restart records the unit's InvocationID before restarting, so
//    after a crash the next run can tell whether the restart happened and
//    restart exactly once; a reboot records the boot id before rebooting.
// In check mode (plan) nothing is applied and nothing is recorded.
//
// Stopping: once the run's CancelToken is cancelled no new step starts; the
// host ends "stopped" and its open intents stay for the next run. A request
// in flight finishes, or is abandoned when the stop's grace has passed.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "common/clock.h"
#include "controller/engine/deploy_events.h"
#include "controller/engine/maintenance_silences.h"
#include "controller/engine/node_power.h"
#include "controller/engine/planner.h"
#include "controller/engine/role_board.h"
#include "controller/engine/state_writer.h"
#include "controller/remote/session_factory.h"

namespace clusterctl {

struct ExecutionOptions {
  bool check = false;
  bool verify = false;
  std::chrono::seconds reboot_timeout{900};
  // After asking for a reboot: the first look for the node, then how often.
  std::chrono::milliseconds reboot_first_probe{3000};
  std::chrono::milliseconds reboot_probe_interval{2000};
  // A restart owed by an interrupted run may still be in flight when the
  // next run looks (a unit activating): it is looked at again this often
  // until it settles, for at most `restart_settle_timeout`.
  std::chrono::milliseconds restart_settle_interval{1000};
  std::chrono::seconds restart_settle_timeout{300};
  std::chrono::milliseconds step_timeout{std::chrono::hours(1)};  // one resource request
  // A maintenance silence ends by itself this long after the reboot's
  // timeout (the step's, else reboot_timeout; a maintenance step's adds its
  // own timeout, else step_timeout), should the run that opened it never
  // end it.
  std::chrono::seconds silence_margin{1800};
};

struct DeployContext {
  SessionFactory* sessions = nullptr;
  const CancelToken* cancel = nullptr;  // optional
  StateWriter* writer = nullptr;        // null in check mode
  RoleBoard* board = nullptr;
  DeployListener* listener = nullptr;
  const Inventory* inventory = nullptr;
  const SecretVault* secrets = nullptr;  // masks secret values in what nodes send back; optional
  int64_t run_id = 0;
  ExecutionOptions options;
  const std::map<std::string, std::map<std::string, StepResult>>* last_results = nullptr;
  const std::map<std::string, std::vector<Intent>>* open_intents = nullptr;  // by host
  const Clock* clock = nullptr;  // the run's time (records, timeouts, waits); null: the system clock
  MaintenanceSilences* silences = nullptr;  // where a node's alerts are silenced while it reboots; optional
  NodePower* power = nullptr;  // the BMCs: a node not back from its reboot is power-cycled; optional
};

// Whether the host must be contacted at all (something to check or owed).
bool HostNeedsContact(const HostPlan& plan, const DeployContext& context);

// Runs one host. `session` is one already open to it (the run gathered its
// facts over it), or null: the host is connected to when it needs contact.
// Every outcome, including a failure to connect, is in the report; the
// board learns what became of each of the host's roles.
Task<HostReport> ExecuteHost(const HostPlan& plan, DeployContext& context, std::unique_ptr<AgentSession> session);

}  // namespace clusterctl
