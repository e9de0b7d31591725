// `clusterctl inventory import`: converts an Ansible/DeepOps INI inventory
// into this project's inventory format, and says what it could not map.
//
// Mapped: [all] and group sections with `ansible_host`, `ansible_port`,
// `ansible_user`, `ansible_ssh_private_key_file`, `ansible_become`; `[x:children]`;
// `[x:vars]` and `[all:vars]`; a bastion given as `-o ProxyCommand="ssh -W %h:%p
// user@host"` or `ProxyJump` in `ansible_ssh_common_args`; Ansible host ranges
// (`gpu[01:16]`). DeepOps groups are renamed to the well-known groups
// (slurm-master -> controller, slurm-node -> compute, ...). Kubernetes and MAAS
// groups are out of scope and dropped with a note. Passwords are never copied.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"

namespace clusterctl {

struct IniImport {
  nlohmann::ordered_json inventory;  // a document in the inventory format
  std::vector<std::string> notes;    // what could not be mapped, and what was renamed
};

std::optional<IniImport> ImportAnsibleIni(std::string_view text, const std::string& file_name,
                                          const std::string& cluster_name, Diagnostics& diagnostics);

// The import as YAML text, with the notes as a comment block at the top.
std::string RenderImport(const IniImport& import, const std::string& source_name);

}  // namespace clusterctl
