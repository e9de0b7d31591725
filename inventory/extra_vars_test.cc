#include "inventory/extra_vars.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "inventory/loader.h"

namespace clusterctl {
namespace {

Inventory TwoHosts() {
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = ParseInventory(R"(cluster: demo
vars:
  slurm_accounting: true
hosts:
  a:
    address: 10.0.0.1
    vars: {slurm_accounting: yes, port: 1}
  b:
    address: 10.0.0.2
)", "inv.yaml", "/inv", diagnostics);
  REQUIRE(inventory);
  return *inventory;
}

}  // namespace

TEST_CASE("-e values are typed as the inventory types YAML scalars; quoting keeps a string") {
  Diagnostics diagnostics;
  auto extra = ParseExtraVars({"flag=false", "answer=yes", "count=42", "ratio=1.5", "name=gpu", "version='12.0'",
                               "list=[1, two]", "empty="},
                              diagnostics);
  REQUIRE(extra);
  CHECK(extra->values["flag"] == false);
  CHECK(extra->values["answer"] == true);
  CHECK(extra->values["count"] == 42);
  CHECK(extra->values["ratio"] == 1.5);
  CHECK(extra->values["name"] == "gpu");
  CHECK(extra->values["version"] == "12.0");
  CHECK(extra->values["list"] == nlohmann::json::array({1, "two"}));
  CHECK(extra->values["empty"].is_null());
  CHECK(extra->origins["flag"].file == "command line (-e flag=false)");
}

TEST_CASE("-e overrides every inventory level on every host, with the command line as origin") {
  Inventory inventory = TwoHosts();
  Diagnostics diagnostics;
  auto extra = ParseExtraVars({"slurm_accounting=false", "port=2", "port=3"}, diagnostics);
  REQUIRE(extra);
  ApplyExtraVars(*extra, inventory);
  for (const Host& host : inventory.hosts) {
    CAPTURE(host.name);
    CHECK(host.vars["slurm_accounting"] == false);
    CHECK(host.vars["port"] == 3);  // the later argument wins
    CHECK(host.var_origins.at("slurm_accounting").file == "command line (-e slurm_accounting=false)");
  }
  CHECK(inventory.cluster_vars["slurm_accounting"] == false);
  CHECK(inventory.extra_vars == nlohmann::json{{"slurm_accounting", false}, {"port", 3}});
}

TEST_CASE("-e @FILE reads a map of variables, located at their lines") {
  const std::string path = "/tmp/clusterctl-extra-vars-test.yaml";
  std::ofstream(path) << "# site\nslurm_accounting: no\nnodes: [1, 2]\n";
  Diagnostics diagnostics;
  auto extra = ParseExtraVars({"@" + path}, diagnostics);
  REQUIRE(extra);
  CHECK(extra->values["slurm_accounting"] == false);
  CHECK(extra->origins["slurm_accounting"].file == path);
  CHECK(extra->origins["slurm_accounting"].line == 2);
  std::ofstream(path) << "- a\n- b\n";
  CHECK_FALSE(ParseExtraVars({"@" + path}, diagnostics));
  std::remove(path.c_str());
}

TEST_CASE("-e refuses what is not KEY=VALUE and files that cannot be read") {
  for (const char* bad : {"novalue", "=1", "1x=2", "a-b=1", "@/nonexistent/vars.yaml", "a=[1,"}) {
    CAPTURE(bad);
    Diagnostics diagnostics;
    CHECK_FALSE(ParseExtraVars({bad}, diagnostics));
    CHECK(diagnostics.has_errors());
  }
}

}  // namespace clusterctl
