// The catalog's table of variables: every variable a role or validate
// declares, once. A variable is declared by one role; another role that reads
// it says `NAME: {from: ROLE}` and gets the same declaration and default.
// Declarations inferred from format 1/2 defaults never conflict: a real
// declaration wins over them.
#include "common/strings.h"
#include "controller/catalog/role.h"
#include "controller/catalog/check_variables.h"
#include "controller/catalog/deploy_variables.h"

namespace clusterctl {

void Catalog::CollectVariables(Diagnostics& diagnostics) {
  variables_ = ValidateVariables();
  variables_.insert(DeployVariables().begin(), DeployVariables().end());
  std::vector<std::string> role_names;
  for (const auto& [name, role] : roles_) role_names.push_back(name);
  for (const auto& [name, role] : roles_) {
    for (const auto& [variable, spec] : role.variables) {
      if (spec.inferred) continue;
      auto [it, inserted] = variables_.emplace(variable, spec);
      if (!inserted) {
        diagnostics.Error(spec.where, "variable '" + variable + "' is declared by " + it->second.declared_by +
                                          " and by role " + name + ": declare it once and write '" + variable +
                                          ": {from: " + it->second.declared_by + "}' in the other role");
      }
    }
  }
  for (auto& [name, role] : roles_) {
    for (const auto& [variable, owner_name] : role.variables_from) {
      const Role* owner = Find(owner_name);
      if (!owner) {
        diagnostics.Error(role.where, "variable '" + variable + "' of role " + name + " is from unknown role '" +
                                          owner_name + "'" + DidYouMean(owner_name, role_names));
        continue;
      }
      auto declared = owner->variables.find(variable);
      if (declared == owner->variables.end() || owner->variables_from.count(variable)) {
        diagnostics.Error(role.where, "variable '" + variable + "' of role " + name + " is from role " + owner_name +
                                          ", which does not declare it");
        continue;
      }
      role.variables[variable] = declared->second;
      role.vars[variable] = declared->second.default_value;
    }
  }
  for (const auto& [name, role] : roles_) {
    for (const auto& [variable, spec] : role.variables) {
      if (spec.inferred) variables_.emplace(variable, spec);
    }
  }
}

const VariableSpec* Catalog::FindVariable(const std::string& name) const {
  auto it = variables_.find(name);
  return it == variables_.end() ? nullptr : &it->second;
}

}  // namespace clusterctl
