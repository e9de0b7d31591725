#include "inventory/model.h"

namespace clusterctl {

const std::vector<std::string>& WellKnownGroups() {
  static const std::vector<std::string> groups = {kGroupController, kGroupControllerBackup, kGroupLogin,
                                                  kGroupCompute,    kGroupNfsServer,        kGroupNfsClients,
                                                  kGroupMonitoring, kGroupDirectory,       kGroupLogs};
  return groups;
}

const Host* Inventory::FindHost(const std::string& name) const {
  auto it = host_index.find(name);
  return it == host_index.end() ? nullptr : &hosts[it->second];
}

const Group* Inventory::FindGroup(const std::string& name) const {
  auto it = group_index.find(name);
  return it == group_index.end() ? nullptr : &groups[it->second];
}

std::vector<std::string> Inventory::MembersOf(const std::string& group) const {
  if (group == kGroupAll) {
    std::vector<std::string> all;
    for (const Host& h : hosts) all.push_back(h.name);
    return all;
  }
  const Group* g = FindGroup(group);
  return g ? g->members : std::vector<std::string>{};
}

}  // namespace clusterctl
