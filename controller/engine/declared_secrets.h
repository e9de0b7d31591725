// Values of variables a role declares `secret: true` (a webhook URL that
// carries its token): registered with the run's one masking place, the
// vault (SecretVault::AddToMask), before anything is planned, so every
// output of the run masks them as it masks the vault's own secrets.
#pragma once

#include "controller/catalog/role.h"
#include "controller/state/secret_vault.h"
#include "inventory/model.h"

namespace clusterctl {

// Every level the inventory sets variables at: the cluster, groups, hosts.
void MaskDeclaredSecrets(const Catalog& catalog, const Inventory& inventory, const SecretVault& vault);

}  // namespace clusterctl
