#include "controller/catalog/deploy_variables.h"

#include "controller/catalog/builtin_variables.h"

namespace clusterctl {
namespace {

constexpr const char* kDeclarations = R"(
reboot_power_cycle_attempts:
  default: 1
  minimum: 0
  maximum: 5
  description: "times a reboot step power-cycles its node through the node's BMC (inventory bmc) when the node does not come back within the step's timeout, waiting that timeout again after each; 0: never"
)";

}  // namespace

const std::map<std::string, VariableSpec>& DeployVariables() {
  static const std::map<std::string, VariableSpec> variables =
      BuiltInDeclarations({{kDeclarations, "the deploy's variables"}}, "deploy");
  return variables;
}

}  // namespace clusterctl
