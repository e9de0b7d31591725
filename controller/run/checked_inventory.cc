#include "controller/run/checked_inventory.h"

#include <cstdlib>

#include "common/strings.h"
#include "controller/catalog/variable_check.h"
#include "inventory/extra_vars.h"
#include "inventory/loader.h"

namespace clusterctl {

void WarnWithoutBuiltInRoles(const Catalog::Sources& sources, Diagnostics& diagnostics) {
  if (sources.data_dir_found) return;
  diagnostics.Warning({"clusterctl", 0, 0},
                      "no built-in roles found: looked for roles/ in " + Join(sources.data_dirs_searched, " and ") +
                          (std::getenv("CLUSTERCTL_DATA_DIR") ? " (CLUSTERCTL_DATA_DIR)" : "") +
                          "; set CLUSTERCTL_DATA_DIR to the directory that holds roles/ and templates/ "
                          "(installed: /usr/share/clusterctl)");
}

std::optional<Catalog> LoadCatalogFor(const Inventory& inventory, const std::vector<std::string>& only_roles,
                                      Diagnostics& diagnostics) {
  const Catalog::Sources sources = Catalog::DefaultSources(inventory.base_dir);
  WarnWithoutBuiltInRoles(sources, diagnostics);
  std::optional<Catalog> catalog = Catalog::Load(sources, diagnostics);
  if (!catalog) return std::nullopt;
  catalog->CheckInventoryRoles(inventory, diagnostics);
  CheckInventoryVariables(*catalog, inventory, diagnostics, sources.data_dir_found);
  for (std::string& problem : UnknownRoles(*catalog, only_roles)) diagnostics.Error({"--roles", 0, 0}, std::move(problem));
  if (diagnostics.has_errors()) return std::nullopt;
  return catalog;
}

std::vector<std::string> UnknownRoles(const Catalog& catalog, const std::vector<std::string>& roles) {
  std::vector<std::string> names;
  for (const auto& [name, role] : catalog.roles()) names.push_back(name);
  std::vector<std::string> problems;
  for (const std::string& role : roles) {
    if (!catalog.Find(role)) {
      problems.push_back("unknown role '" + role + "'" + DidYouMean(role, names) + "; roles: " + Join(names, ", "));
    }
  }
  return problems;
}


CheckedInventory LoadCheckedInventory(const std::string& path, const std::vector<std::string>& only_roles,
                                      const std::vector<std::string>& extra_vars, Diagnostics& diagnostics) {
  CheckedInventory out;
  Inventory partial;
  InventoryLoadOptions options;
  options.partial = &partial;
  out.inventory = LoadInventory(path, diagnostics, options);
  std::optional<ExtraVars> extra = ParseExtraVars(extra_vars, diagnostics);
  if (!extra) {
    out.inventory.reset();
    return out;
  }
  if (out.inventory) {
    ApplyExtraVars(*extra, *out.inventory);
    out.catalog = LoadCatalogFor(*out.inventory, only_roles, diagnostics);
    return out;
  }
  if (partial.base_dir.empty()) return out;  // not even the file's sections were read
  Diagnostics catalog_problems;               // reported by a run on a sound file, not here
  const Catalog::Sources sources = Catalog::DefaultSources(partial.base_dir);
  if (std::optional<Catalog> catalog = Catalog::Load(sources, catalog_problems)) {
    catalog->CheckInventoryRoles(partial, diagnostics);
    CheckInventoryVariables(*catalog, partial, diagnostics, sources.data_dir_found);
  }
  return out;
}

}  // namespace clusterctl
