// An inventory from YAML text, for unit tests: parsed as inv.yaml in /tmp;
// a parse error fails the test with its diagnostics.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "inventory/loader.h"

namespace clusterctl::testing {

inline Inventory InventoryFromText(const std::string& text) {
  Diagnostics d;
  auto inventory = ParseInventory(text, "inv.yaml", "/tmp", d);
  REQUIRE_MESSAGE(inventory, d.ToString());
  return *inventory;
}

}  // namespace clusterctl::testing
