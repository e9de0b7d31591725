// Loading an inventory for anything that acts on it (inventory check, deploy,
// plan, validate, run, facts): the file, then the role catalog against it
// (the roles its groups name, every variable: declared, of its type and
// allowed values, its files present), every problem of both in one pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "controller/catalog/role.h"
#include "inventory/model.h"

namespace clusterctl {

struct CheckedInventory {
  std::optional<Inventory> inventory;  // set when the file itself loaded
  std::optional<Catalog> catalog;      // set when the inventory also passed the catalog's checks
  bool ok() const { return inventory && catalog; }
};

// When the file has errors of its own, its variables are still checked as
// far as they were read, so a mistyped key and a mistyped variable are
// reported by the same run. `only_roles`: --roles, checked against the
// catalog. `extra_vars`: -e arguments (inventory/extra_vars.h), applied
// before the checks so they are checked like the inventory's own values.
CheckedInventory LoadCheckedInventory(const std::string& path, const std::vector<std::string>& only_roles,
                                      const std::vector<std::string>& extra_vars, Diagnostics& diagnostics);

// A warning naming where the built-in roles were looked for, when they were
// not found (every command that loads the catalog says it the same way).
void WarnWithoutBuiltInRoles(const Catalog::Sources& sources, Diagnostics& diagnostics);

// Loads the role catalog for `inventory` and checks it against the inventory
// and against `only_roles` (--roles). Every problem goes to `diagnostics`;
// nullopt when there were any.
std::optional<Catalog> LoadCatalogFor(const Inventory& inventory, const std::vector<std::string>& only_roles,
                                      Diagnostics& diagnostics);

// A message for each of `roles` (--roles) the catalog does not have, with a
// suggestion and the known roles.
std::vector<std::string> UnknownRoles(const Catalog& catalog, const std::vector<std::string>& roles);

}  // namespace clusterctl
