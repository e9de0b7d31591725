// The NFS view's tests (nfs_view_test.cc, nfs_external_test.cc) build it
// from an inventory's text, expecting it to build or to fail.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "controller/views/nfs_view.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl::testing {

inline nlohmann::json NfsViewOf(const std::string& text) {
  auto view = BuildNfsView(InventoryFromText(text), {});
  REQUIRE_MESSAGE(view.ok(), view.status().message());
  return *view;
}

// Why the view refuses the inventory.
inline std::string NfsViewErrorOf(const std::string& text) {
  auto view = BuildNfsView(InventoryFromText(text), {});
  REQUIRE_FALSE(view.ok());
  return view.status().message();
}

}  // namespace clusterctl::testing
