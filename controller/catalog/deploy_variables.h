// The variables the deploy engine itself reads, which no role declares
// because they belong to no role: what a `reboot` step of any role does
// when its node does not come back (controller/engine/kinds/reboot_kind.cc).
// Declared here in the role files' format (variable_spec.h), declared_by
// "deploy", so that `inventory check` knows and checks them like role
// variables and docs/roles.md lists them.
#pragma once

#include <map>
#include <string>

#include "controller/catalog/variable_spec.h"

namespace clusterctl {

inline constexpr const char* kRebootPowerCycleAttempts = "reboot_power_cycle_attempts";

// Parsed once.
const std::map<std::string, VariableSpec>& DeployVariables();

}  // namespace clusterctl
