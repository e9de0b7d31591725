// Executor: brings one host to its plan, over its agent connection.
//
// The resume model (docs/state.md, DESIGN section 5):
//  - a step whose last recorded result is ok with the same input hash is not
//    checked again (unless --verify); a host with no such step and no owed
//    follow-up is not contacted at all;
//  - a follow-up (a handler, a reboot) is recorded as an open intent, durably,
//    before the change that owes it is applied, and closed only once done;
//  - a service restart records the unit's InvocationID before restarting, so
//    after a crash the next run can tell whether the restart happened and
//    restart exactly once.
// In check mode (plan) nothing is applied and nothing is recorded.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "controller/engine/planner.h"
#include "controller/engine/report.h"
#include "controller/engine/role_board.h"
#include "controller/engine/state_writer.h"
#include "controller/remote/host_connector.h"

namespace clusterctl {

struct ExecutionOptions {
  bool check = false;
  bool verify = false;
  std::chrono::seconds reboot_timeout{900};
};

struct DeployContext {
  RemoteContext* remote = nullptr;
  StateWriter* writer = nullptr;  // null in check mode
  RoleBoard* board = nullptr;
  Reporter* reporter = nullptr;
  const Inventory* inventory = nullptr;
  int64_t run_id = 0;
  ExecutionOptions options;
  const std::map<std::string, std::map<std::string, StepResult>>* last_results = nullptr;
  const std::map<std::string, std::vector<Intent>>* open_intents = nullptr;  // by host
};

// Whether the host must be contacted at all (something to check or owed).
bool HostNeedsContact(const HostPlan& plan, const DeployContext& context);

Task<HostReport> ExecuteHost(const HostPlan& plan, DeployContext& context);

}  // namespace clusterctl
