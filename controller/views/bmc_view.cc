#include "controller/views/bmc_view.h"

namespace clusterctl {

std::string BmcTarget(const BmcSettings& bmc) {
  return bmc.port == kIpmiPort ? bmc.address : bmc.address + ":" + std::to_string(bmc.port);
}

Result<nlohmann::json> BuildBmcView(const Inventory& inventory, const std::map<std::string, nlohmann::json>&,
                                    const ViewInputs&) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const Host& host : inventory.hosts) {
    if (!host.bmc) continue;
    hosts.push_back({{"name", host.name},
                     {"target", BmcTarget(*host.bmc)},
                     {"user", host.bmc->user},
                     {"driver", host.bmc->interface == BmcInterface::kLan ? "LAN" : "LAN_2_0"}});
  }
  return nlohmann::json{{"any", !hosts.empty()}, {"hosts", hosts}};
}

}  // namespace clusterctl
