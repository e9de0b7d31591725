// The variables `clusterctl validate` reads (its thresholds, docs/validation.md),
// declared like role variables so that `inventory check` knows them. Declared
// here, below both the catalog that checks them and validate's reader
// (controller/validate/thresholds.cc), which takes its defaults from them;
// with them the variables each check spec declares (check_spec.h).
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
