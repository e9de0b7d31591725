// Planner: roles x hosts -> the ordered steps of each host, with every
// parameter and file content rendered and an input hash per step.
//
// Pure with respect to the nodes: it reads the inventory, the catalog, the
// stored facts and controller-side files (templates, copy sources), and
// touches no host. Every problem it finds (an undefined variable, a `when`
// that cannot be evaluated, a missing copy source) is a located diagnostic,
// reported before anything runs.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "controller/catalog/role.h"
#include "controller/engine/tag_selection.h"
#include "inventory/model.h"

#include "controller/views/cluster_views.h"

namespace clusterctl {

struct PlannedStep {
  const Role* role = nullptr;
  const RoleStep* step = nullptr;
  bool handler = false;
  std::string kind;
  nlohmann::json params = nlohmann::json::object();  // what the agent gets
  std::string body;                                  // file content, key, ...
  bool secret = false;                               // never shown, never backed up
  bool skipped = false;                              // its `when` is false for this host
  std::string copy_source;                           // copy: controller-side path
  std::string input_hash;                            // sha256 of kind, params, body
  std::string loop_key;                              // a loop item's name (or index)

  // "role/step", or "role/step[item]" for a loop's items: the key of its
  // recorded results.
  std::string StepId() const { return loop_key.empty() ? step->name : step->name + "[" + loop_key + "]"; }
  std::string Identity() const { return role->name + "/" + StepId(); }
  // The step's own `timeout` parameter (seconds), when it has one.
  std::optional<std::chrono::seconds> Timeout() const {
    const auto timeout = params.find("timeout");
    if (timeout == params.end() || !timeout->is_number_integer()) return std::nullopt;
    return std::chrono::seconds(timeout->get<int>());
  }
};

struct HostPlan {
  const Host* host = nullptr;
  std::vector<const Role*> roles;
  std::vector<PlannedStep> steps;     // in execution order
  std::vector<PlannedStep> handlers;  // every handler of the host's roles
  const PlannedStep* FindHandler(const std::string& role, const std::string& name) const;
};

struct PlanInputs {
  const Inventory* inventory = nullptr;
  const Catalog* catalog = nullptr;
  const std::map<std::string, nlohmann::json>* facts = nullptr;  // by host; missing = never gathered
  // The run's secrets. Passwords are visible to templates as secrets.NAME;
  // any secret may be a file's secret_content. A step whose parameters, or
  // a non-secret file whose content, would carry a secret value is a
  // planning error.
  const SecretVault* secrets = nullptr;
  std::vector<std::string> only_roles;                           // --roles
  TagSelection tags;  // --tags/--skip-tags: unselected steps are not planned (handlers always are)
  // Hosts gone from the inventory whose removal is not done yet
  // (cluster.removed_hosts: name, address), so roles can drain them.
  nlohmann::json removed_hosts = nlohmann::json::array();
};

// The cluster as templates see it (`cluster`): built once per run. A host's
// `url_host` is its address as a URL or listen address writes it (an IPv6
// literal in brackets).
nlohmann::json BuildClusterContext(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts);

// What the cluster views read beyond the inventory and the facts
// (views/cluster_views.h): the validate variables' defaults and which
// checks run on a node alone.
ViewInputs ControllerViewInputs();

class Planner {
 public:
  explicit Planner(PlanInputs inputs);
  HostPlan Plan(const Host& host, Diagnostics& diagnostics);
  // Why the views left `host` out (its facts cannot be used by one: the
  // fact named); empty when they did not. A caller fails such a host alone
  // instead of planning it.
  std::vector<std::string> HostProblems(const std::string& host) const;

 private:
  // The role's own `when` for this host (true without one); an expression
  // that cannot be evaluated is a planning error.
  bool RoleApplies(const Role& role, const std::vector<const nlohmann::json*>& stack, const Host& host,
                   Diagnostics& diagnostics) const;
  void PlanStep(const Role& role, const RoleStep& step, bool handler, const std::vector<const nlohmann::json*>& stack,
                HostPlan& plan, Diagnostics& diagnostics);
  void PlanOne(const Role& role, const RoleStep& step, bool handler, const std::vector<const nlohmann::json*>& stack,
               const std::string& loop_key, HostPlan& plan, Diagnostics& diagnostics);

  // `params` is planned.params serialised (the caller needs it for the input hash too).
  void CheckNoSecretLeaks(const RoleStep& step, const PlannedStep& planned, const std::string& params, const Host& host,
                          Diagnostics& diagnostics) const;

  void AddBmcCredentials();

  PlanInputs inputs_;
  nlohmann::json cluster_context_;
  std::map<std::string, std::string> bmc_passwords_;  // "bmc password of HOST" -> password (bmc_credentials.h)
  // A BMC password shorter than this (a factory default such as "admin")
  // is not looked for in parameters: it would match words that are no
  // secret. It is still masked and still reaches only a secret file.
  static constexpr size_t kMinCheckedBmcPassword = 8;
  // A view's `per_host` part, taken out of `cluster.<view>`: each host sees
  // its own entry as `host.<view>` (null when it has none).
  std::map<std::string, nlohmann::json> per_host_views_;
  std::vector<std::string> view_errors_;  // derived views (cluster_views.h) that could not be built
  std::map<std::string, std::vector<std::string>> host_problems_;  // hosts the views left out, and why
  // Controller-side files steps send (copy sources): sha256 and size, read once.
  std::map<std::string, std::pair<std::string, uint64_t>> file_digests_;
};

}  // namespace clusterctl
