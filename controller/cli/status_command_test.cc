#include "controller/cli/status_command.h"

#include <doctest/doctest.h>

#include "inventory/loader.h"

namespace clusterctl {

TEST_CASE("status rows cover inventory hosts and hosts only the state knows") {
  Diagnostics d;
  auto inventory = ParseInventory("cluster: c\nhosts:\n  a: {address: 10.0.0.1}\n  b: {address: 10.0.0.2}\n"
                                  "  c: {address: 10.0.0.3}\n",
                                  "inv.yaml", "/tmp", d);
  REQUIRE(inventory);
  std::vector<HostRecord> records(3);
  records[0].name = "a";
  records[0].status = HostStatus::kOk;
  records[0].last_status_at = 1000;
  records[1].name = "b";
  records[1].status = HostStatus::kFailed;
  records[1].last_error = "apt-get exited 100";
  records[2].name = "old";
  records[2].status = HostStatus::kOk;
  records[2].in_inventory = false;

  std::vector<HostStatusRow> rows = BuildStatusRows(*inventory, records);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].state == HostState::kOk);
  CHECK(rows[1].state == HostState::kFailed);
  CHECK(rows[1].detail == "apt-get exited 100");
  CHECK(rows[2].state == HostState::kNeverDeployed);
  CHECK(rows[3].name == "old");
  CHECK(rows[3].state == HostState::kGoneFromInventory);
}

TEST_CASE("status of an empty state lists every host as never deployed") {
  Diagnostics d;
  auto inventory = ParseInventory("cluster: c\nhosts:\n  n[1-3]: {}\n", "inv.yaml", "/tmp", d);
  REQUIRE(inventory);
  std::vector<HostStatusRow> rows = BuildStatusRows(*inventory, {});
  REQUIRE(rows.size() == 3);
  for (const HostStatusRow& row : rows) CHECK(row.state == HostState::kNeverDeployed);
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("a host whose last connection attempt failed is unreachable since the first failed one, not never deployed") {
  Diagnostics d;
  auto inventory = ParseInventory("cluster: c\nhosts:\n  a: {address: 10.0.0.1}\n  b: {address: 10.0.0.2}\n", "inv.yaml",
                                  "/tmp", d);
  REQUIRE(inventory);
  std::vector<HostRecord> records(2);
  records[0].name = "a";  // never deployed; a plan could not reach it
  records[0].status = HostStatus::kNever;
  records[0].unreachable_since = 2000;
  records[0].unreachable_error = "10.0.0.1:22: connect: Connection refused";
  records[1].name = "b";  // deployed, then refused
  records[1].status = HostStatus::kOk;
  records[1].last_status_at = 1000;
  records[1].unreachable_since = 3000;
  records[1].unreachable_error = "10.0.0.2:22: connect: No route to host";
  std::vector<HostStatusRow> rows = BuildStatusRows(*inventory, records);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].state == HostState::kUnreachable);
  CHECK(rows[0].since == 2000);
  CHECK(rows[0].detail == "10.0.0.1:22: connect: Connection refused");
  CHECK(rows[1].state == HostState::kUnreachable);
  CHECK(rows[1].since == 3000);
}

}  // namespace clusterctl
