#include "inventory/ansible_groups.h"

#include <array>

namespace clusterctl {
namespace {

using Kind = AnsibleGroup::Kind;

constexpr std::array<AnsibleGroup, 20> kAnsibleGroups = {{
    {"slurm-master", Kind::kWellKnown, kGroupController, "Slurm controller role"},
    {"slurm-node", Kind::kWellKnown, kGroupCompute, "Slurm node role"},
    {"slurm-login", Kind::kWellKnown, kGroupLogin, "Slurm login role"},
    {"slurm-nfs", Kind::kWellKnown, kGroupNfsServer, "NFS server role"},
    {"nfs-server", Kind::kWellKnown, kGroupNfsServer, "NFS server role"},
    {"slurm-nfs-client", Kind::kWellKnown, kGroupNfsClients, "NFS client role"},
    {"nfs-clients", Kind::kWellKnown, kGroupNfsClients, "NFS client role"},
    {"slurm-metric", Kind::kWellKnown, kGroupMonitoring, "monitoring role"},
    {"slurm-monitoring", Kind::kWellKnown, kGroupMonitoring, "monitoring role"},
    {"kube-master", Kind::kKubernetes, "", ""},
    {"kube-control-plane", Kind::kKubernetes, "", ""},
    {"kube_control_plane", Kind::kKubernetes, "", ""},
    {"kube-node", Kind::kKubernetes, "", ""},
    {"kube_node", Kind::kKubernetes, "", ""},
    {"etcd", Kind::kKubernetes, "", ""},
    {"k8s-cluster", Kind::kKubernetes, "", ""},
    {"k8s_cluster", Kind::kKubernetes, "", ""},
    {"calico_rr", Kind::kKubernetes, "", ""},
    {"calico-rr", Kind::kKubernetes, "", ""},
    {"maas", Kind::kMaas, "", ""},
}};

std::string WarningFor(const AnsibleGroup& entry) {
  const std::string name(entry.name);
  switch (entry.kind) {
    case Kind::kWellKnown:
      return "group '" + name + "' is DeepOps's name: clusterctl's roles apply to '" + std::string(entry.clusterctl) +
             "'; its hosts get no " + std::string(entry.gets) + " (rename the group, or give it roles:)";
    case Kind::kKubernetes:
      return "group '" + name + "' is a DeepOps/Kubespray Kubernetes group: clusterctl does not deploy "
             "Kubernetes; its hosts get no role from it";
    case Kind::kMaas:
      return "group '" + name + "' is DeepOps's MAAS group: clusterctl does not install operating systems; "
             "its hosts get no role from it";
  }
  return {};
}

}  // namespace

const AnsibleGroup* FindAnsibleGroup(std::string_view name) {
  for (const AnsibleGroup& entry : kAnsibleGroups) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

void WarnAboutAnsibleGroupNames(const Inventory& inventory, Diagnostics& diagnostics) {
  for (const Group& group : inventory.groups) {
    const AnsibleGroup* entry = FindAnsibleGroup(group.name);
    if (entry && !group.members.empty() && group.roles.empty()) {
      diagnostics.Warning(group.defined_at, WarningFor(*entry));
    }
  }
}

}  // namespace clusterctl
