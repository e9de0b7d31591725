#include "controller/engine/checked_inventory.h"

#include "controller/catalog/variable_check.h"
#include "controller/engine/deploy_run.h"
#include "inventory/extra_vars.h"
#include "inventory/loader.h"

namespace clusterctl {

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
