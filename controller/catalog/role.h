// Roles: the catalog of desired state, as data (docs/roles.md).
//
// A role file (roles/NAME.yaml) declares a description, the groups it applies
// to, variables with defaults, secrets it needs generated, dependencies on other roles (same host, run
// first) and on roles on other hosts (waits_for), ordered steps (one resource
// each, with optional `when`, `notify`, `tags`) and handlers. Built-in roles
// live in the project's roles/; an admin's roles/ beside the inventory adds
// roles and overrides built-in ones of the same name, with no rebuild.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "controller/catalog/platforms.h"
#include "controller/catalog/template.h"
#include "controller/catalog/value_syntax.h"
#include "controller/catalog/variable_spec.h"
#include "controller/catalog/when.h"
#include "controller/state/secret_vault.h"
#include "inventory/model.h"

namespace clusterctl {

// 2 added `syntax:` (value syntaxes of variables); 3 declares every variable
// (type, allowed values, default, description: variable_spec.h) and drops
// `syntax:` into the declarations. Version 1 and 2 files load unchanged.
inline constexpr int kRoleFormatVersion = 3;

struct RoleWait {
  std::string role;   // must be converged ...
  std::string group;  // ... on every host of this group
  // A role's wait only: the name of the role's step it comes before; the
  // steps before it run without waiting (a client's packages while its
  // server comes up). Empty: before the role's first step.
  std::string before;
  SourceLocation where;
};

struct RoleStep {
  std::string name;  // unique in its role: the step's identity
  std::string kind;  // resource kind
  nlohmann::json params = nlohmann::json::object();
  std::optional<WhenExpression> when;
  // Handlers: of the same role ("restart x"), or of another role that runs
  // on the same host ("slurm-node/restart slurmd"; ignored on hosts
  // without that role).
  std::vector<std::string> notify;
  std::vector<RoleWait> waits_for;  // handlers only: run once these roles are done elsewhere
  std::vector<std::string> tags;
  std::string loop;  // a list variable: the step runs once per item (as `item`)
  // `maintenance: true`: the step takes the node out of service (a drain).
  // Before it changes anything, the node's alerts are silenced in
  // Alertmanager until the host's run is over (engine/phases/maintenance_silence.cc), as
  // before a reboot.
  bool maintenance = false;
  SourceLocation where;
  std::shared_ptr<const Template> content_template;  // file: template: NAME
  std::string template_name;
};

// What a notify entry names: "restart x" (a handler of the notifying role)
// or "other-role/restart x".
struct HandlerRef {
  std::string role;
  std::string handler;
  bool other_role = false;
};
HandlerRef ParseHandlerRef(const std::string& notify, const std::string& own_role);

struct Role {
  std::string name;
  std::string description;
  std::string file;
  std::vector<std::string> applies_to;
  std::vector<std::string> tags;
  std::vector<std::string> depends_on;
  // Groups that must hold a host wherever this role runs (its templates name
  // that host): an inventory error otherwise (Catalog::CheckInventoryRoles).
  std::vector<std::string> needs;
  std::vector<RoleWait> waits_for;
  // Which of the hosts it applies to get it, decided from their facts and
  // variables (`facts.pci.gpu_count > 0`); a host for which it is false does
  // not run the role at all.
  std::optional<WhenExpression> when;
  int format_version = 1;
  nlohmann::json vars = nlohmann::json::object();  // defaults
  // The declaration of each of `vars` (inferred from the default in format
  // 1 and 2 files); `from: ROLE` declarations are resolved once every role
  // is loaded. An inventory value must pass it (CheckInventoryVariables).
  std::map<std::string, VariableSpec> variables;
  std::map<std::string, std::string> variables_from;  // name -> the role declaring it
  std::map<std::string, SecretSpec> secrets;        // generated once, kept in the state
  std::vector<RoleStep> steps;
  std::vector<RoleStep> handlers;
  SourceLocation where;

  const RoleStep* FindHandler(const std::string& handler) const;
  // The waits that come before step `step_name` (its `before`), or before
  // the role's first step when step_name is empty.
  std::vector<RoleWait> WaitsBefore(const std::string& step_name) const;
};

class Catalog {
 public:
  struct Sources {
    std::vector<std::string> role_dirs;      // later directories override earlier ones
    std::vector<std::string> template_dirs;  // searched in order (the first match wins)
    // DefaultSources only: where it looked for the built-in catalog (a
    // directory holding roles/ and templates/), and whether it found one.
    std::vector<std::string> data_dirs_searched;
    bool data_dir_found = false;
    // The OS releases (platforms.h): the built-in catalog's platforms.yaml.
    // Empty (a catalog of test roles): no release is refused and none sets
    // variables.
    std::string platforms_file;
  };

  // Loads every role, its templates, and checks references and cycles.
  // Nothing is returned when any problem was found (all are reported).
  static std::optional<Catalog> Load(const Sources& sources, Diagnostics& diagnostics);

  // The standard places: the admin's roles/ and templates/ beside the
  // inventory, after the built-in ones (CLUSTERCTL_DATA_DIR, or found from
  // the executable's location). An empty `inventory_dir`: the built-in ones alone.
  static Sources DefaultSources(const std::string& inventory_dir);

  // One role file's text, checked as Load checks each file (not its
  // references to other roles). For tests and the fuzzer.
  static std::optional<Role> ParseRole(std::string_view text, const std::string& path, const std::string& name,
                                       const Sources& sources, Diagnostics& diagnostics);

  const Role* Find(const std::string& name) const;
  const std::map<std::string, Role>& roles() const { return roles_; }
  const Platforms& platforms() const { return platforms_; }

  // Every variable a role or validate declares, by name: what the inventory
  // may set (catalog_variables.cc).
  const VariableSpec* FindVariable(const std::string& name) const;
  const std::map<std::string, VariableSpec>& variables() const { return variables_; }

  // The secrets the given roles declare (same name = same secret).
  static std::map<std::string, SecretSpec> SecretsOf(const std::vector<const Role*>& roles);

  // Roles for a host, dependencies first: roles whose applies_to names one of
  // its groups (or "all"), roles its groups assign in the inventory, and
  // their depends_on closure. With `only` non-empty, just those roles (in
  // dependency order) among the host's.
  std::vector<const Role*> RolesFor(const Host& host, const Inventory& inventory,
                                    const std::vector<std::string>& only) const;

  // Checks that every role the inventory assigns exists (file:line of the
  // group), and that each group a host's roles `need` holds a host.
  void CheckInventoryRoles(const Inventory& inventory, Diagnostics& diagnostics) const;

 private:
  void CheckNeededGroups(const Inventory& inventory, Diagnostics& diagnostics) const;

  // Resolves `from:` declarations and builds variables_ (with validate's),
  // reporting a variable two roles declare differently.
  void CollectVariables(Diagnostics& diagnostics);

  // Reads sources.platforms_file (when set) into platforms_, checking its
  // variables against the roles' declarations.
  void LoadPlatforms(const Sources& sources, Diagnostics& diagnostics);

  std::map<std::string, Role> roles_;
  std::map<std::string, VariableSpec> variables_;
  Platforms platforms_;
};

}  // namespace clusterctl
