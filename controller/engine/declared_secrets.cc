#include "controller/engine/declared_secrets.h"

namespace clusterctl {
namespace {

void MaskVars(const Catalog& catalog, const nlohmann::json& vars, const SecretVault& vault) {
  if (!vars.is_object()) return;
  for (const auto& [name, value] : vars.items()) {
    const VariableSpec* spec = catalog.FindVariable(name);
    if (!spec) continue;
    std::vector<std::string> secrets;
    CollectSecretValues(*spec, value, secrets);
    for (const std::string& secret : secrets) vault.AddToMask("variable " + name, secret);
  }
}

}  // namespace

void MaskDeclaredSecrets(const Catalog& catalog, const Inventory& inventory, const SecretVault& vault) {
  MaskVars(catalog, inventory.cluster_vars, vault);
  for (const Group& group : inventory.groups) MaskVars(catalog, group.vars, vault);
  for (const Host& host : inventory.hosts) MaskVars(catalog, host.vars, vault);
}

}  // namespace clusterctl
