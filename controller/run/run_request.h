// RunRequest: a run as the command line (from its flags) and the daemon (from
// a JSON body) ask for one, and its preparation: everything about it checked
// against the inventory and the role catalog before the state is locked or
// any host is contacted. The adapters then open the run (RunSession,
// run/run_session.h) and hand the prepared run to run/run_pipeline.h,
// which runs it and records how it ended. The adapters only read their
// input, choose listeners and map the outcome to an exit or HTTP code.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "controller/catalog/role.h"
#include "controller/engine/deploy_run.h"
#include "controller/engine/tag_selection.h"
#include "controller/run/run_session.h"
#include "controller/validate/validation_run.h"
#include "inventory/model.h"

namespace clusterctl {

// `clusterctl run`'s command: an argument vector (no shell), as root.
struct AdHocCommand {
  std::vector<std::string> argv;
  std::chrono::seconds timeout{90};
  uint64_t max_output_bytes = 262144;  // per stream and host: every output is held until all are done
};

struct RunRequest {
  RunKind kind = RunKind::kDeploy;
  std::string limit;  // host and group patterns (inventory/host_selection.h); "" every host
  // deploy, plan and drift
  std::vector<std::string> roles;  // only these roles
  TagSelection tags;
  bool verify = false;
  std::string batch;  // N hosts or P% of them at a time; "" all at once
  int max_fail_percent = 100;
  std::set<std::string> rotate_secrets;
  // validate
  std::vector<std::string> checks;  // names, prefixes, !name (CheckSelection)
  CheckLevel level = CheckLevel::kFunctional;  // --level: acceptance adds the measurement checks
  bool drain_failed = false;  // acceptance: drain the nodes it failed, resume the ones it drained that pass
  std::chrono::seconds deadline{900};
  // run
  AdHocCommand command;
};

// What is wrong with a request, by the field it is in: each adapter names
// the field its own way (the command line by its flag, the API by the
// body's field).
struct RunProblem {
  enum class Field { kLimit, kRoles, kTags, kSkipTags, kBatch, kMaxFail, kChecks, kCommand };
  Field field = Field::kLimit;
  std::string message;  // without the field's name
};

// A request resolved against its inventory. REQUIRES: the inventory and
// the catalog it was prepared with outlive it.
struct PreparedRun {
  RunRequest request;
  const Inventory* inventory = nullptr;
  const Catalog* catalog = nullptr;  // deploy, plan and drift
  std::vector<const Host*> hosts;    // the selection, in inventory order
  size_t batch_size = 0;             // deploy, plan and drift: hosts at a time
  CheckSelection checks;                         // validate

  RunKind kind() const { return request.kind; }
  DeploymentOptions Deployment() const;  // deploy, plan and drift
};

// What can be checked of a request without its inventory: its batch, failure
// budget, checks and command, and (given a catalog) its roles and tags.
// The command line reports these with the inventory's own problems.
std::vector<RunProblem> CheckRunRequest(const RunRequest& request, const Catalog* catalog);

// The request checked (CheckRunRequest) and resolved: its hosts, its batch
// size, and for a validation its checks (their variables were checked with
// the inventory's, catalog/variable_check.h). `catalog`: REQUIRED
// for deploy, plan and drift. Every problem, or the prepared run.
std::variant<PreparedRun, std::vector<RunProblem>> PrepareRun(const RunRequest& request, const Inventory& inventory,
                                                              const Catalog* catalog);

// "10" -> 10 hosts, "25%" of 8 -> 2 (at least 1), "" -> all. Nullopt when malformed.
std::optional<size_t> ParseBatchSize(const std::string& text, size_t hosts);

}  // namespace clusterctl
