// An inventory from YAML text where every file it names exists (a bmc's
// password file: the loader checks it is there), for unit tests that never
// read those files; parsed as inv.yaml in /tmp, a parse error fails the test.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "inventory/loader.h"

namespace clusterctl::testing {

inline Inventory InventoryWithFilesFromText(const std::string& text) {
  InventoryLoadOptions options;
  options.file_exists = [](const std::string&) { return true; };
  Diagnostics d;
  auto inventory = ParseInventory(text, "inv.yaml", "/tmp", d, options);
  REQUIRE_MESSAGE(inventory, d.ToString());
  return *inventory;
}

}  // namespace clusterctl::testing
