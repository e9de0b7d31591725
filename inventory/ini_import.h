// `clusterctl inventory import`: converts an Ansible/DeepOps INI inventory
// into this project's inventory format, and says what it could not map.
//
// Mapped: [all] and group sections with `ansible_host`, `ansible_port`,
// `ansible_user`, `ansible_ssh_private_key_file`, `ansible_become`; `[x:children]`;
// `[x:vars]` and `[all:vars]`; a bastion given as `-o ProxyCommand="ssh -W %h:%p
// user@host"` or `ProxyJump` in `ansible_ssh_common_args`; Ansible host ranges
// (`gpu[01:16]`); group_vars/ and host_vars/ beside the inventory
// (ansible_vars_files.h). DeepOps groups are renamed to the well-known groups
// (ansible_groups.h: slurm-master -> controller, ...); Kubernetes and MAAS
// groups are out of scope and dropped with a note. Values keep their INI
// types (ini_value.h); only variables clusterctl knows are written
// (ansible_variables.h), passwords never.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "common/yaml_doc.h"

namespace clusterctl {

struct IniImport {
  nlohmann::ordered_json inventory;  // a document in the inventory format
  std::vector<std::string> notes;    // what could not be mapped, and what was renamed
};

struct IniImportOptions {
  std::string cluster_name;
  // Where group_vars/ and host_vars/ are looked for: the INI file's
  // directory ("" is the current one). nullopt: not read.
  std::optional<std::string> vars_dir;
  // Variables some role declares: they pass through as they are; any other
  // variable not in DeepOps's table (deepops_variables.h) is left out, noted.
  std::set<std::string> known_variables;
  YamlLimits limits;  // for each group_vars/host_vars file, and for all of them together
};

// Nullopt, with every problem (file:line) in `diagnostics`, when the INI or a
// group_vars/host_vars file cannot be read; nothing is to be written then.
std::optional<IniImport> ImportAnsibleIni(std::string_view text, const std::string& file_name,
                                          const IniImportOptions& options, Diagnostics& diagnostics);

// The import as YAML text, with the notes as a comment block at the top.
std::string RenderImport(const IniImport& import, const std::string& source_name);

}  // namespace clusterctl
