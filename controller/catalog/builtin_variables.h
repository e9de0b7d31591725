// Variables declared by clusterctl itself rather than by a role: validate's
// (check_variables.h, declared_by "validate") and the deploy's own
// (deploy_variables.h, "deploy"), written in the role files' declaration
// format (variable_spec.h).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "controller/catalog/variable_spec.h"

namespace clusterctl {

// YAML maps of NAME: declaration (`texts`: each with where it comes from),
// each declared by `declared_by`. A defect (a bad declaration, a name
// declared twice) is a build mistake: it is printed and the program aborts.
std::map<std::string, VariableSpec> BuiltInDeclarations(
    const std::vector<std::pair<std::string, std::string>>& texts, const std::string& declared_by);

// Declared by clusterctl itself (validate, the deploy), not by a role.
bool IsBuiltIn(const VariableSpec& spec);
// Who declares it, in words: "validate", "deploy", "role NAME".
std::string DeclaredByText(const VariableSpec& spec);

}  // namespace clusterctl
