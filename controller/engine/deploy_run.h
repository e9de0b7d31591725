// RunDeployment: one deploy (or plan), from a loaded inventory and role
// catalog to every selected host's outcome. The mirror of validate's
// RunValidation: the command line and the daemon call it and adapt only its
// inputs and its events; neither holds deploy logic.
//
//  1. Prepare the secrets the hosts' roles declare (generated once and kept
//     in the state's secrets/; a plan generates them in memory only). A
//     problem here ends the run before any host is contacted.
//  2. Gather the facts of selected hosts that have none stored (all of them
//     with verify), over the session each host's steps will then use: one
//     SSH session per host per run.
//  3. Set aside the facts the roles cannot read (facts_check.h): their host
//     fails, named, and no other host's plan sees them. Plan every other
//     reachable host with the whole cluster's stored facts. Any problem (an
//     undefined variable, a bad `when`) ends the run before anything changes.
//  4. Execute: hosts concurrently, in batches, no new host started once the
//     failure budget is spent or the run was asked to stop.
//  5. Hosts that left the inventory are marked removed once every other
//     host converged.
// Everything it has to say goes to the listener as events; the caller opens
// and finishes the run record (RunSession).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "common/clock.h"
#include "common/diagnostics.h"
#include "controller/catalog/role.h"
#include "controller/engine/deploy_events.h"
#include "controller/engine/executor.h"
#include "controller/engine/tag_selection.h"
#include "controller/remote/session_factory.h"
#include "controller/state/state_store.h"
#include "inventory/model.h"

namespace clusterctl {

struct DeploymentOptions {
  bool check = false;              // plan: change nothing, record no step
  bool verify = false;             // check every step on every node
  std::vector<std::string> roles;  // only these roles (--roles)
  TagSelection tags;               // only these steps (--tags/--skip-tags: tag_selection.h)
  std::set<std::string> rotate_secrets;  // generate these anew (--rotate-secret)
  size_t batch_size = 0;           // hosts at a time; 0: all at once
  int max_fail_percent = 100;      // stop starting hosts once more than this failed
  ExecutionOptions execution;      // timeouts; check and verify are set from the above

  // A deploy that checked every step of every role on its hosts: only such a
  // run may clear their drift marks (--roles and --tags check a part).
  bool VerifiesEverything() const { return verify && !check && roles.empty() && tags.empty(); }
};

struct DeploymentInputs {
  const Inventory* inventory = nullptr;
  const Catalog* catalog = nullptr;
  std::vector<const Host*> hosts;  // the selection (--limit), done once by the caller
  StateStore* state = nullptr;     // open for writing
  int64_t run_id = 0;
  DeploymentOptions options;
  // The run's time (durations, deadlines, step records); null: the system clock.
  const Clock* clock = nullptr;
  // Where the alerts of a node it reboots are silenced; null: nowhere.
  MaintenanceSilences* silences = nullptr;
  // The BMCs, through which a node that does not come back from its reboot
  // is power-cycled (node_power.h); null: none is.
  NodePower* power = nullptr;
};

struct DeploymentResult {
  enum class Ending {
    kCompleted,     // every selected host has an outcome in `hosts`
    kInvalidInput,  // planning found problems (`error`): nothing was changed
    kFailed,        // the state or the secrets could not be read or written (`error`)
  };
  Ending ending = Ending::kCompleted;
  std::string error;
  std::vector<HostReport> hosts;  // in the order of the selection
  bool stopped = false;           // the run was asked to stop before it finished
  int changed = 0;                // steps changed (would change, for a plan)
  int failed = 0;                 // steps failed

  // Every host ok (and the run not stopped).
  bool converged() const;
};

DeploymentResult RunDeployment(const DeploymentInputs& inputs, SessionFactory& sessions, DeployListener& listener,
                               const CancelToken& cancel);

}  // namespace clusterctl
