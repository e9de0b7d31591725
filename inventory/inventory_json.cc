#include "inventory/inventory_json.h"

namespace clusterctl {

nlohmann::json HostToJson(const Host& host) {
  nlohmann::json interfaces = nlohmann::json::array();
  for (const Interface& i : host.interfaces) {
    nlohmann::json entry = {{"name", i.name}, {"address", i.address}};
    entry["prefix_length"] = i.prefix_length < 0 ? nlohmann::json(nullptr) : nlohmann::json(i.prefix_length);
    interfaces.push_back(entry);
  }
  return {{"name", host.name},         {"address", host.address}, {"interfaces", interfaces},
          {"groups", host.groups},     {"connection", host.connection.ToJson()},
          {"bmc", host.bmc ? host.bmc->ToJson() : nlohmann::json(nullptr)},
          {"vars", host.vars}};
}

nlohmann::json InventoryToJson(const Inventory& inventory) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const Host& h : inventory.hosts) hosts.push_back(HostToJson(h));
  nlohmann::json groups = nlohmann::json::array();
  for (const Group& g : inventory.groups) {
    groups.push_back({{"name", g.name},
                      {"hosts", g.hosts},
                      {"children", g.children},
                      {"roles", g.roles},
                      {"depth", g.depth},
                      {"members", g.members},
                      {"vars", g.vars}});
  }
  return {{"format_version", inventory.format_version},
          {"cluster", inventory.cluster_name},
          {"source", inventory.source_file},
          {"vars", inventory.cluster_vars},
          {"hosts", hosts},
          {"groups", groups}};
}

}  // namespace clusterctl
