// ib.ports judged as the node judges it (spec_test_util.h): the ports and
// rate it expects come from validate_ib_ports and validate_ib_rate_gbps,
// which the check declares, read from the host's variables.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// A node whose sysfs (facts) shows an InfiniBand port and whose ibstat printed `capture`.
testing::SpecBench IbNode(const std::string& capture) {
  testing::SpecBench bench;
  bench.node = NodeReadings::FromFacts(
      "ib01", {{"ib_ports",
                {{{"device", "mlx5_0"}, {"port", 1}, {"state", "4: ACTIVE"}, {"phys_state", "5: LinkUp"},
                  {"rate_gbps", 400}, {"link_layer", "InfiniBand"}}}}});
  bench.Reads("ibstat", testing::CapturedFixture(capture));
  return bench;
}

TEST_CASE("ib.ports declares validate_ib_ports and validate_ib_rate_gbps") {
  const CheckSpec* spec = FindCheckSpec("ib.ports");
  REQUIRE(spec != nullptr);
  CHECK(spec->variables.find("\nvalidate_ib_ports:") != std::string::npos);
  CHECK(spec->variables.find("\nvalidate_ib_rate_gbps:") != std::string::npos);
}

TEST_CASE("ib.ports: every InfiniBand port by default; the inventory's rails and rate when it lists them") {
  testing::SpecBench bench = IbNode("ibstat--8xConnectX-7-RoCE-400G--2-ports-down--1.txt");
  // RoCE ports are Ethernet: by default there is nothing to check.
  CHECK(bench.Judge("ib.ports").outcome == CheckOutcome::kSkip);
  bench.vars["validate_ib_ports"] = {"mlx5_0/1", "mlx5_3/1", "mlx5_4/1", "mlx5_5/1",
                                     "mlx5_6/1", "mlx5_9/1", "mlx5_10/1", "mlx5_11/1"};
  CheckResult rails = bench.Judge("ib.ports");
  CHECK(rails.outcome == CheckOutcome::kFail);
  CHECK(rails.measured == "6/8 ports up");
  CHECK(rails.detail == "mlx5_5/1 state DOWN, physical state DISABLED; mlx5_11/1 state DOWN, physical state DISABLED");
  CHECK(rails.threshold == "Active, LinkUp, 400 Gb/s");
  bench.vars["validate_ib_ports"] = {"mlx5_0/1", "mlx5_3/1"};
  CHECK(bench.Judge("ib.ports").outcome == CheckOutcome::kPass);
  bench.vars["validate_ib_rate_gbps"] = 800;
  CheckResult slow = bench.Judge("ib.ports");
  CHECK(slow.outcome == CheckOutcome::kFail);
  CHECK(slow.detail == "mlx5_0/1 rate 400 Gb/s; mlx5_3/1 rate 400 Gb/s");
  CHECK(slow.threshold == "Active, LinkUp, 800 Gb/s");
}

TEST_CASE("ib.ports' variables refuse a bad value by their declarations, naming it") {
  const std::vector<std::pair<std::string, nlohmann::json>> bad = {
      {"validate_ib_ports", "mlx5_0/1"}, {"validate_ib_ports", {"mlx5_0"}}, {"validate_ib_ports", {"mlx5 0/1"}},
      {"validate_ib_rate_gbps", 0},      {"validate_ib_rate_gbps", "fast"}};
  for (const auto& [name, value] : bad) {
    CAPTURE(name);
    auto declared = ValidateVariables().find(name);
    REQUIRE(declared != ValidateVariables().end());
    std::vector<std::string> problems = CheckVariableValue(declared->second, value, name, {});
    REQUIRE_FALSE(problems.empty());
    CHECK(problems.front().rfind(name, 0) == 0);
  }
}

}  // namespace
}  // namespace clusterctl
