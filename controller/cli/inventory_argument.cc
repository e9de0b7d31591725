#include "controller/cli/inventory_argument.h"

namespace clusterctl {
namespace {

void MovePositionalToRest(InventoryArgument& argument) {
  argument.rest->insert(argument.rest->begin(), argument.positional);
  argument.positional.clear();
}

}  // namespace

Result<std::string> ResolveInventory(InventoryArgument& argument, const char* environment) {
  const std::string from_environment = environment ? environment : "";
  if (!argument.option.empty()) {
    if (argument.positional.empty() || argument.positional == argument.option) return argument.option;
    if (argument.rest) {
      MovePositionalToRest(argument);
      return argument.option;
    }
    return Status::InvalidArgument("two inventories: '" + argument.positional + "' (INVENTORY) and '" +
                                   argument.option + "' (-i/--inventory); give one");
  }
  if (!argument.positional.empty()) {
    const bool is_rest = argument.rest && argument.rest_required && argument.rest->empty() && !from_environment.empty();
    if (!is_rest) return argument.positional;
    MovePositionalToRest(argument);
  }
  if (!from_environment.empty()) return from_environment;
  return Status::InvalidArgument(std::string("no inventory: give it as INVENTORY, with -i/--inventory FILE, or in ") +
                                 kInventoryVariable);
}

}  // namespace clusterctl
