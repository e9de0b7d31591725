// Which inventory a command reads: the positional INVENTORY, the option
// -i/--inventory FILE, or (neither given) the environment variable
// CLUSTERCTL_INVENTORY.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace clusterctl {

inline constexpr const char* kInventoryVariable = "CLUSTERCTL_INVENTORY";

struct InventoryArgument {
  std::string positional;  // INVENTORY, as the command line put it
  std::string option;      // -i/--inventory
  // The words a command takes after INVENTORY (hostkey forget's HOSTs, run's
  // COMMAND), or null. When -i names the inventory, a positional INVENTORY
  // that differs from it is the first of these words, which is what the
  // user meant (`hostkey forget -i inv.yaml gpu01`); so is a lone positional
  // when the environment names the inventory and `rest_required` words are
  // missing (`hostkey forget gpu01`).
  std::vector<std::string>* rest = nullptr;
  bool rest_required = false;
};

// The inventory's path. Moves a positional word into `*argument.rest` as
// described there. InvalidArgument when the positional and -i name two
// different inventories, or when none of the three names one (the message
// names all three ways). `environment`: CLUSTERCTL_INVENTORY's value, or null.
Result<std::string> ResolveInventory(InventoryArgument& argument, const char* environment);

}  // namespace clusterctl
