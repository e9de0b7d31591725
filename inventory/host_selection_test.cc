#include "inventory/host_selection.h"

#include <doctest/doctest.h>

#include "inventory/hostlist.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

std::string Select(const Inventory& inventory, const char* pattern) {
  auto hosts = SelectHosts(inventory, pattern);
  if (!hosts.ok()) return "error: " + hosts.status().message();
  std::vector<std::string> names;
  for (const Host* h : *hosts) names.push_back(h->name);
  return CollapseHostList(names);
}

}  // namespace

TEST_CASE("--limit selects names, groups, ranges and globs, minus exclusions") {
  Diagnostics d;
  auto inventory = ParseInventory(R"(cluster: c
hosts:
  head: {}
  gpu[01-08]: {}
groups:
  controller: {hosts: head}
  compute: {hosts: "gpu[01-08]"}
  rack1: {hosts: "gpu[01-04]"}
)", "inv.yaml", "/tmp", d);
  REQUIRE(inventory);
  CHECK(Select(*inventory, "") == "gpu[01-08],head");
  CHECK(Select(*inventory, "head") == "head");
  CHECK(Select(*inventory, "compute") == "gpu[01-08]");
  CHECK(Select(*inventory, "gpu[02-03],head") == "gpu[02-03],head");
  CHECK(Select(*inventory, "gpu0*") == "gpu[01-08]");
  CHECK(Select(*inventory, "compute,!gpu07") == "gpu[01-06,08]");
  CHECK(Select(*inventory, "!rack1") == "gpu[05-08],head");
  CHECK(Select(*inventory, "all,!controller,!gpu0[5-8]") == "gpu[01-04]");
  CHECK(Select(*inventory, "rack*") == "gpu[01-04]");
  CHECK(Select(*inventory, "gpu09") == "error: --limit: 'gpu09' matches no host or group (did you mean 'gpu01'?)");
  CHECK(Select(*inventory, "compte") == "error: --limit: 'compte' matches no host or group (did you mean 'compute'?)");
  CHECK(Select(*inventory, "compute,!compute") == "error: --limit 'compute,!compute' selects no host");
}

}  // namespace clusterctl
