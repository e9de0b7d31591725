// The Slurm health check's configuration as the health view renders it for
// each Slurm node (docs/health.md), read back by clusterctl-health's own parser.
#include "controller/views/health_view.h"

#include <doctest/doctest.h>

#include "controller/catalog/check_variables.h"
#include "controller/engine/planner.h"
#include "health/health_config.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

using testing::InventoryFromText;

constexpr const char* kInventory = R"(version: 1
cluster: c
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.2}
  cpu01: {address: 10.0.0.3}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, cpu01]}
  cpus: {hosts: [cpu01], vars: {slurm_health_checks: ["!gpu", "!ib"], validate_clock_offset_max_ms: 50}}
)";

nlohmann::json ConfigOf(const nlohmann::json& view, const std::string& host) {
  return nlohmann::json::parse(view["per_host"][host]["config"].get<std::string>());
}

}  // namespace

TEST_CASE("health view: each compute node's configuration, the selection per group, thresholds with defaults") {
  std::map<std::string, nlohmann::json> facts = {
      {"gpu01", {{"cpu", {{"cpus", 64}}}, {"memory", {{"total_mib", 515000}}}}}};
  auto view = BuildHealthView(InventoryFromText(kInventory), facts, ControllerViewInputs());
  REQUIRE(view.ok());
  CHECK_FALSE((*view)["per_host"].contains("head"));  // not a Slurm node
  CHECK((*view)["per_host"]["gpu01"]["program"] == "node-program:clusterctl-health");

  const nlohmann::json gpu = ConfigOf(*view, "gpu01");
  CHECK(gpu["checks"] == nlohmann::json(DefaultHealthChecks()));
  CHECK(gpu["vars"]["validate_cpus_expected"] == 64);  // node.resources from the facts at deploy
  CHECK(gpu["vars"]["validate_memory_mib_expected"] == 515000);
  CHECK(gpu["vars"]["validate_disk_paths"] == nlohmann::json({"/", "/tmp", "/var"}));  // a default filled in
  CHECK(gpu["textfile"] == "/var/lib/prometheus/node-exporter/clusterctl_health.prom");

  const nlohmann::json cpu = ConfigOf(*view, "cpu01");  // no facts yet: no expectations
  CHECK_FALSE(cpu["vars"].contains("validate_cpus_expected"));  // unset: absent, as validate reads it
  CHECK(cpu["vars"]["validate_clock_offset_max_ms"] == 50);
  for (const auto& check : cpu["checks"]) {
    CHECK(check.get<std::string>().rfind("gpu.", 0) != 0);
    CHECK(check.get<std::string>().rfind("ib.", 0) != 0);
  }
  CHECK(cpu["checks"].size() >= 4);  // clock.offset, node.disk, node.resources, munge.decode

  // What the view writes, clusterctl-health reads.
  auto parsed = health::ParseHealthConfig((*view)["per_host"]["cpu01"]["config"].get<std::string>());
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  CHECK(parsed->node == "cpu01");
  // Every variable the node reads meets the declaration of the check that reads it.
  for (const auto& [name, value] : parsed->vars.items()) {
    CAPTURE(name);
    auto declared = ValidateVariables().find(name);
    REQUIRE(declared != ValidateVariables().end());
    CHECK(CheckVariableValue(declared->second, value, name, {}).empty());
  }
}

TEST_CASE("health view: an unknown check is an error naming the variable and host; off means no node") {
  auto bad = BuildHealthView(InventoryFromText(std::string(kInventory) + "vars: {slurm_health_checks: [gpu.xyd]}\n"), {},
                             ControllerViewInputs());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("slurm_health_checks of gpu01") != std::string::npos);
  auto off = BuildHealthView(InventoryFromText(std::string(kInventory) + "vars: {slurm_health_check: false}\n"), {},
                             ControllerViewInputs());
  REQUIRE(off.ok());
  CHECK((*off)["per_host"].empty());
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("health view: a node's counts that are no integers (1e300 CPUs, -5 MiB) set no expectation") {
  // 1780b34 cast the double 1e300 to an integer: undefined behaviour (UBSan's
  // "outside the range of representable values" in build-sanitize/).
  std::map<std::string, nlohmann::json> facts = {
      {"gpu01", {{"cpu", {{"cpus", 1e300}}}, {"memory", {{"total_mib", -5}}}}},
      {"cpu01", {{"cpu", {{"cpus", 2.5}}}, {"memory", {{"total_mib", 4096}}}}}};
  auto view = BuildHealthView(testing::InventoryFromText(kInventory), facts, ControllerViewInputs());
  REQUIRE(view.ok());
  const nlohmann::json gpu = ConfigOf(*view, "gpu01")["vars"];
  CHECK_FALSE(gpu.contains("validate_cpus_expected"));
  CHECK_FALSE(gpu.contains("validate_memory_mib_expected"));
  const nlohmann::json cpu = ConfigOf(*view, "cpu01")["vars"];
  CHECK_FALSE(cpu.contains("validate_cpus_expected"));
  CHECK(cpu["validate_memory_mib_expected"] == 4096);
}

}  // namespace clusterctl
