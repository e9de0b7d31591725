// fabric.ipoib's cluster phase on a FakeClusterRun: which hosts ping which
// addresses at which MTU (ipoib_mtu or the interface's own), who is left out,
// and a ping that did not run. The verdict on the interfaces and the ping
// outputs itself: fabric_checks_test.cc.
#include <doctest/doctest.h>

#include "controller/validate/check_test_util.h"
#include "controller/validate/checks/spec_test_util.h"
#include "controller/validate/fabric_checks.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

// node03 has no IPoIB interface; storage is on ib0 but not selected.
const char* kInventory = R"(cluster: testbed
hosts:
  node01: {address: 10.9.0.1, interfaces: {ib0: 10.10.0.1/16}}
  node02: {address: 10.9.0.2, interfaces: {ib0: 10.10.0.2/16}}
  node03: {address: 10.9.0.3}
  storage: {address: 10.9.0.9, interfaces: {ib0: 10.10.0.9/16}}
)";

nlohmann::json LiveIb0(const std::string& address, int mtu = 4092) {
  return {{"interfaces",
           {{{"name", "ib0"}, {"up", true}, {"mtu", mtu}, {"link_type", "infiniband"},
             {"addresses", {{{"family", "inet"}, {"address", address}, {"prefix", 16}}}}}}}};
}

// What ping prints when every reply came back (the testbed's capture, fabric_checks_test.cc).
ToolOutput Replied() {
  ToolOutput out;
  out.out = "--- 10.10.0.2 ping statistics ---\n2 packets transmitted, 2 received, 0% packet loss, time 203ms\n";
  return out;
}

struct FabricBench : testing::FakeClusterRun {
  FabricBench() {
    inv = testing::InventoryFromText(kInventory);
    Node("node01", LiveIb0("10.10.0.1"));
    Node("node02", LiveIb0("10.10.0.2"));
    Node("node03");
    for (const char* host : {"node01", "node02", "node03"}) probed.push_back({host, true, true, ""});
    answer = [](const HostCommand&) { return Replied(); };
  }
  const CheckResult& Of(const std::string& host) {
    for (const CheckResult& r : results) {
      if (r.subject == host) return r;
    }
    FAIL("no result for " << host);
    return results.front();
  }
};

TEST_CASE("fabric.ipoib: each selected node pings every other host's address on its interface name") {
  FabricBench run;
  REQUIRE(run.Phase("fabric.ipoib").size() == 3);
  CHECK_MESSAGE(run.Of("node01").outcome == CheckOutcome::kPass, run.Of("node01").detail);
  CHECK(run.Of("node01").measured == "2/2 peers reached");  // node02 and storage, outside --limit
  CHECK(run.Of("node01").threshold == "every peer, DF set at MTU (ib0 4092)");  // no ipoib_mtu: the interface's own
  CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node03").outcome == CheckOutcome::kSkip);
  CHECK(run.Of("node03").detail == "no IPoIB interfaces (ib*) in the inventory for node03");
  REQUIRE(run.ran.size() == 4);
  CHECK(run.ran[0].host == "node01");
  CHECK(run.ran[0].argv == Argv{"ping", "-n", "-q", "-M", "do", "-s", "4064", "-c", "2", "-i", "0.2", "-W", "2", "-I",
                                "ib0", "10.10.0.2"});
  CHECK(run.ran[0].timeout_s == 10);
  CHECK(run.ran[1].argv.back() == "10.10.0.9");
  CHECK(run.ran[2].host == "node02");
  CHECK(run.ran[2].argv.back() == "10.10.0.1");
}

TEST_CASE("fabric.ipoib tests the configured ipoib_mtu, and a live MTU that differs fails") {
  FabricBench run;
  run.vars["node01"] = {{"ipoib_mtu", 2044}};
  run.Phase("fabric.ipoib");
  CHECK(run.ran[0].argv[6] == "2016");  // 2044 - 28
  CHECK(run.Of("node01").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node01").detail.find("ib0 MTU 4092, configured 2044") == 0);
  SUBCASE("under 68 configures none: the interface's own") {
    FabricBench zero;
    zero.vars["node01"] = {{"ipoib_mtu", 0}};
    zero.Phase("fabric.ipoib");
    CHECK(zero.ran[0].argv[6] == "4064");
    CHECK(zero.Of("node01").outcome == CheckOutcome::kPass);
  }
}

TEST_CASE("fabric.ipoib leaves out unreachable and unselected hosts; a ping not run fails, saying why") {
  FabricBench run;
  run.probed[1] = {"node02", true, false, "ssh: connection refused"};  // failed by every node check already
  run.probed.push_back({"storage", false, true, ""});
  run.Node("storage", LiveIb0("10.10.0.9"));
  SUBCASE("only node01 and node03 get a result") {
    run.Phase("fabric.ipoib");
    REQUIRE(run.results.size() == 2);
    CHECK(run.results[0].subject == "node01");
    CHECK(run.results[1].subject == "node03");
    for (const HostCommand& c : run.ran) CHECK(c.host == "node01");
  }
  SUBCASE("the deadline passed: node01's pings fail as not run") {
    run.deadline_passed = true;
    run.Phase("fabric.ipoib");
    const CheckResult& r = run.Of("node01");
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.measured == "0/2 peers reached");
    CHECK(testing::EvidenceHas(r, "not run: the validation's deadline (900 s) passed first"));
  }
}

}  // namespace
}  // namespace clusterctl
