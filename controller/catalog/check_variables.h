// The variables `clusterctl validate` reads: the ones each check spec
// declares in its `.variables` (check_spec.h; thresholds included,
// docs/validation.md), gathered here in the role files' declaration format
// (variable_spec.h), so that `inventory check` knows and checks them like
// role variables and one documentation generator serves both.
#pragma once

#include <map>
#include <string>

#include "controller/catalog/variable_spec.h"

namespace clusterctl {

// Parsed once; declared_by is "validate".
const std::map<std::string, VariableSpec>& ValidateVariables();

// A host's variables with every validate variable it does not set at its
// declared default, so a check reads each one resolved (as it will on the node).
nlohmann::json WithValidateDefaults(const nlohmann::json& vars);

}  // namespace clusterctl
