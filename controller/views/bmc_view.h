// The BMC view (docs/roles.md, "The BMC view"): the hosts whose BMC the
// monitoring host's IPMI exporter reads, as `cluster.bmc`:
//   any:   whether any host of the inventory has a bmc;
//   hosts: per such host, in the inventory's order, {name, target, user,
//          driver}: target is the BMC's address, with ":port" when the port
//          is not 623 (the exporter's `target` and its module's name), user
//          the IPMI user, driver FreeIPMI's driver type for the interface
//          (lanplus: LAN_2_0, lan: LAN).
// No password: the credentials' passwords reach only the exporter's secret
// file, as `secrets.bmcs` (engine/bmc_credentials.h). Pure.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/views/cluster_views.h"
#include "inventory/model.h"

namespace clusterctl {

// The exporter's target for a BMC: its address, ":port" added when not 623.
std::string BmcTarget(const BmcSettings& bmc);

Result<nlohmann::json> BuildBmcView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts,
                                    const ViewInputs& inputs);

}  // namespace clusterctl
