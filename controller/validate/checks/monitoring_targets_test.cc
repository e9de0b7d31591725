// monitoring.targets' cluster phase on a FakeClusterRun: the host it asks,
// the second reading one scrape interval after a failed one (and when there
// is no time for it), and every way it ends without a reading. The verdict on
// promtool's answer itself: service_checks_test.cc.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "controller/validate/service_checks.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: testbed
hosts:
  node01: {address: 10.0.0.11}
  node02: {address: 10.0.0.12}
groups:
  controller: {hosts: node01}
  monitoring: {hosts: node01}
  compute: {hosts: node02}
)";

std::string Up(const std::string& job, const std::string& node, const std::string& value) {
  return R"({"metric":{"__name__":"up","instance":"10.0.0.1:9","job":")" + job + R"(","node":")" + node +
         R"("},"value":[1795470576.216,")" + value + R"("]})";
}

// promtool's answer: node02's node exporter up or down.
ToolOutput Targets(const std::string& node02) {
  ToolOutput out;
  out.out = "[" + Up("node", "node01", "1") + "," + Up("node", "node02", node02) + "," + Up("slurm", "node01", "1") + "]";
  return out;
}

// Both hosts selected and reached; Prometheus answers all up.
struct MonitoringBench : testing::FakeClusterRun {
  MonitoringBench() {
    inv = testing::InventoryFromText(kInventory);
    for (const char* host : {"node01", "node02"}) {
      Node(host);
      probed.push_back({host, true, true, ""});
    }
    answer = [](const HostCommand&) { return Targets("1"); };
  }
  CheckResult Only() {
    const std::vector<CheckResult>& added = Phase("monitoring.targets");
    REQUIRE(added.size() == 1);
    CHECK(added.front().check == "monitoring.targets");
    CHECK(added.front().subject == "node01");
    return added.front();
  }
};

TEST_CASE("monitoring.targets asks Prometheus on the monitoring host once when every target is up") {
  MonitoringBench run;
  CheckResult r = run.Only();
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran[0].host == "node01");
  CHECK(run.ran[0].argv == PrometheusUpArgv("http://10.0.0.11:9090"));
  CHECK(run.ran[0].timeout_s == 30);
}

TEST_CASE("monitoring.targets reads a failed reading again one scrape interval later") {
  MonitoringBench run;
  SUBCASE("a target down at first and up then: a pass, from the second reading") {
    run.answer = [&run](const HostCommand&) { return Targets(run.ran.size() == 1 ? "0" : "1"); };
    CheckResult r = run.Only();
    CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
    REQUIRE(run.ran.size() == 3);
    CHECK(run.ran[1].host == "node01");
    CHECK(run.ran[1].argv == Argv{"sleep", "16"});  // the default 15 s scrape interval, and one
    CHECK(run.ran[2].argv == run.ran[0].argv);
  }
  SUBCASE("down in both: named from the second") {
    run.answer = [](const HostCommand&) { return Targets("0"); };
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find("down: node02 (node)") != std::string::npos);
    CHECK(run.ran.size() == 3);
  }
  SUBCASE("no time left for a second reading: the first one's failure") {
    run.seconds_left = 45;  // not more than the interval and a reading's 30 s
    run.answer = [](const HostCommand&) { return Targets("0"); };
    CHECK(run.Only().outcome == CheckOutcome::kFail);
    CHECK(run.ran.size() == 1);
  }
  SUBCASE("promtool failed: not read again") {
    run.answer = [](const HostCommand&) {
      ToolOutput out;
      out.exit_code = 1;
      out.err = "query error: connection refused";
      return out;
    };
    CHECK(run.Only().outcome == CheckOutcome::kFail);
    CHECK(run.ran.size() == 1);
  }
}

TEST_CASE("monitoring.targets without a reading of Prometheus says why") {
  SUBCASE("the monitoring host unreachable: a failure, nothing run") {
    MonitoringBench run;
    run.probed[0] = {"node01", true, false, "ssh: no route to host"};
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "not checked: the monitoring host node01 is unreachable (ssh: no route to host)");
    CHECK(r.measured == "unknown");
    CHECK(run.ran.empty());
  }
  SUBCASE("the deadline passed first") {
    MonitoringBench run;
    run.deadline_passed = true;
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "not run: the validation's deadline (900 s) passed first");
  }
  SUBCASE("the monitoring host outside the run, or no monitoring group: no result") {
    MonitoringBench run;
    run.probed.erase(run.probed.begin());
    CHECK(run.Phase("monitoring.targets").empty());
    MonitoringBench none;
    none.inv = testing::InventoryFromText("cluster: testbed\nhosts:\n  node01: {address: 10.0.0.11}\n");
    CHECK(none.Phase("monitoring.targets").empty());
    CHECK(run.ran.empty());
  }
}

}  // namespace
}  // namespace clusterctl
