// The BMC view: the hosts with a bmc, their exporter targets and FreeIPMI drivers.
#include "controller/views/bmc_view.h"

#include <doctest/doctest.h>

#include "tests/unit/inventory_text.h"
#include "tests/unit/inventory_with_files.h"

namespace clusterctl {

TEST_CASE("the BMC view lists the hosts with a bmc, their target and driver, and no password") {
  Inventory inventory = testing::InventoryWithFilesFromText(R"(cluster: c
bmc: {user: admin, password_file: bmc.pw}
hosts:
  head01: {address: 10.0.0.1}
  node01: {address: 10.0.1.1, bmc: {address: 10.0.9.1}}
  node02: {address: 10.0.1.2, bmc: {address: bmc-node02.lab, port: 6230, interface: lan, user: root}}
)");
  nlohmann::json view = *BuildBmcView(inventory, {}, {});
  CHECK(view["any"] == true);
  REQUIRE(view["hosts"].size() == 2);
  CHECK(view["hosts"][0] == nlohmann::json({{"name", "node01"}, {"target", "10.0.9.1"}, {"user", "admin"}, {"driver", "LAN_2_0"}}));
  CHECK(view["hosts"][1]["target"] == "bmc-node02.lab:6230");
  CHECK(view["hosts"][1]["driver"] == "LAN");
  CHECK(view["hosts"][1]["user"] == "root");

  Inventory none = testing::InventoryFromText("cluster: c\nhosts:\n  node01: {address: 10.0.1.1}\n");
  CHECK(*BuildBmcView(none, {}, {}) == nlohmann::json({{"any", false}, {"hosts", nlohmann::json::array()}}));
}

}  // namespace clusterctl
