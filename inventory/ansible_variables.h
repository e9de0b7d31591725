// One Ansible variable (from an INI inventory or a group_vars/host_vars file)
// into clusterctl's terms, for `inventory import`:
//  - Ansible's connection variables (ansible_host, ansible_user, ...) become
//    the address and connection settings;
//  - secrets (a name with "pass" or "secret" in it, an ansible-vault value,
//    or a map inside the value with such a key) are never written;
//  - DeepOps's variables in deepops_variables.h are converted or left out;
//  - a variable some role declares (`known`) passes through;
//  - anything else is left out.
// Everything not written, renamed or converted gets one note.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl {

struct AnsibleVariable {
  std::string name;
  nlohmann::json value;
  std::string where;   // for notes: "[all:vars]", "host gpu01", "group_vars/all.yml:12"
  bool vault = false;  // holds an ansible-vault value
};

// One level of the imported inventory: the cluster, a group or a host.
struct ImportedLevel {
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  nlohmann::ordered_json connection = nlohmann::ordered_json::object();
  std::string address;  // hosts only: from ansible_host
};

class VariableImporter {
 public:
  // REQUIRES: both outlive the importer.
  VariableImporter(const std::set<std::string>& known, std::vector<std::string>& notes)
      : known_(known), notes_(notes) {}

  // Adds `variable` to `level` (a host when `is_host`), replacing what an
  // earlier Add of the same name put there: call in Ansible's precedence
  // order, lowest first.
  void Add(const AnsibleVariable& variable, ImportedLevel& level, bool is_host) const;

 private:
  bool AddConnection(const AnsibleVariable& variable, ImportedLevel& level, bool is_host) const;
  void Leave(const AnsibleVariable& variable, ImportedLevel& level, const std::string& why) const;

  const std::set<std::string>& known_;
  std::vector<std::string>& notes_;
};

}  // namespace clusterctl
