// Ansible's group_vars/ and host_vars/ beside an inventory file (DeepOps:
// config/inventory with config/group_vars/ and config/host_vars/), read for
// `inventory import`.
//
// For a group or host NAME, Ansible reads the first of NAME, NAME.yml,
// NAME.yaml, NAME.json that exists; a directory is read whole (its files
// with one of those extensions or none, recursively, in name order, hidden
// files and backups~ skipped; a later file overrides an earlier one). So
// does this reader. Each file goes through the inventory's bounded YAML
// reader (size, UTF-8, depth, alias limits); all files together may hold at
// most `limits.max_bytes` (what they become must fit one inventory file),
// and a directory at most kMaxPatternExpansion entries.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/yaml_doc.h"
#include "inventory/ansible_variables.h"

namespace clusterctl {

struct AnsibleVarsFiles {
  // By the inventory's own group or host name, each file's variables in
  // file order, files in the order they apply.
  std::map<std::string, std::vector<AnsibleVariable>> groups;  // "all" included
  std::map<std::string, std::vector<AnsibleVariable>> hosts;
  std::vector<std::string> notes;  // files not read, and why
};

// Reads `dir`/group_vars and `dir`/host_vars (either may be absent) for the
// given groups and hosts. Bad YAML, a file that is not a map of variables, or
// a bound exceeded: an error with file:line in `diagnostics`, and nullopt.
std::optional<AnsibleVarsFiles> ReadAnsibleVarsFiles(const std::string& dir, const std::set<std::string>& groups,
                                                     const std::set<std::string>& hosts, const YamlLimits& limits,
                                                     Diagnostics& diagnostics);

}  // namespace clusterctl
