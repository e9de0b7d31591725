// DeepOps/Ansible group names and what they are in clusterctl: the one table
// behind `inventory import`'s renames and the loader's warning about an
// inventory that uses DeepOps's names where clusterctl's roles expect its own.
#pragma once

#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "inventory/model.h"

namespace clusterctl {

struct AnsibleGroup {
  enum class Kind { kWellKnown, kKubernetes, kMaas };
  std::string_view name;        // DeepOps's (or Kubespray's) group name
  Kind kind;
  std::string_view clusterctl;  // kWellKnown: clusterctl's group for the same hosts
  std::string_view gets;        // kWellKnown: what the hosts get there ("Slurm controller role")
};

// The table entry for a DeepOps/Ansible group name, or nullptr.
const AnsibleGroup* FindAnsibleGroup(std::string_view name);

// Warns, at the group's definition, about each group named like a DeepOps
// group that has hosts and assigns no `roles:` of its own: clusterctl's
// roles apply to their hosts only through clusterctl's group names.
void WarnAboutAnsibleGroupNames(const Inventory& inventory, Diagnostics& diagnostics);

}  // namespace clusterctl
