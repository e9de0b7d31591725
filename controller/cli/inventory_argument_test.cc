#include "controller/cli/inventory_argument.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("the inventory comes from INVENTORY, else -i, else CLUSTERCTL_INVENTORY") {
  InventoryArgument positional{"a.yaml", "", nullptr, false};
  CHECK(*ResolveInventory(positional, "env.yaml") == "a.yaml");
  InventoryArgument option{"", "b.yaml", nullptr, false};
  CHECK(*ResolveInventory(option, "env.yaml") == "b.yaml");
  InventoryArgument same{"b.yaml", "b.yaml", nullptr, false};
  CHECK(*ResolveInventory(same, nullptr) == "b.yaml");
  InventoryArgument neither;
  CHECK(*ResolveInventory(neither, "env.yaml") == "env.yaml");
}

TEST_CASE("two different inventories, or none at all, are refused naming the ways to give one") {
  InventoryArgument both{"a.yaml", "b.yaml", nullptr, false};
  Result<std::string> twice = ResolveInventory(both, nullptr);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.status().message().find("'a.yaml' (INVENTORY) and 'b.yaml' (-i/--inventory)") != std::string::npos);
  InventoryArgument neither;
  for (const char* environment : {static_cast<const char*>(nullptr), ""}) {
    Result<std::string> none = ResolveInventory(neither, environment);
    REQUIRE_FALSE(none.ok());
    CHECK(none.status().message() ==
          "no inventory: give it as INVENTORY, with -i/--inventory FILE, or in CLUSTERCTL_INVENTORY");
  }
}

TEST_CASE("with -i or the environment, the positional word of a command with more words is the first of them") {
  std::vector<std::string> hosts = {"gpu02"};
  InventoryArgument forget{"gpu01", "inv.yaml", &hosts, true};
  CHECK(*ResolveInventory(forget, nullptr) == "inv.yaml");
  CHECK(hosts == std::vector<std::string>{"gpu01", "gpu02"});

  std::vector<std::string> none;
  InventoryArgument from_environment{"gpu01", "", &none, true};
  CHECK(*ResolveInventory(from_environment, "env.yaml") == "env.yaml");
  CHECK(none == std::vector<std::string>{"gpu01"});

  std::vector<std::string> given = {"gpu01"};
  InventoryArgument explicit_inventory{"inv.yaml", "", &given, true};
  CHECK(*ResolveInventory(explicit_inventory, "env.yaml") == "inv.yaml");
  CHECK(given == std::vector<std::string>{"gpu01"});

  std::vector<std::string> optional_rest;
  InventoryArgument hold{"inv.yaml", "", &optional_rest, false};
  CHECK(*ResolveInventory(hold, "env.yaml") == "inv.yaml");
  CHECK(optional_rest.empty());
}

}  // namespace clusterctl
