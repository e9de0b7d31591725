// The resolved inventory as JSON (`inventory show --json`, and the data
// templates see as the cluster).
#pragma once

#include <nlohmann/json.hpp>

#include "inventory/model.h"

namespace clusterctl {

nlohmann::json HostToJson(const Host& host);
nlohmann::json InventoryToJson(const Inventory& inventory);

}  // namespace clusterctl
