// ib.write_bw_peers' cluster phase on a FakeClusterRun, every bandwidth from
// a real capture (tests/fixtures/captured/SOURCES.md): two ib_write_bw runs
// on the same Azure HDR HCA, 24056.72 MB/s (ib_write_bw--HDR-loopback--1)
// and 23240.68 MB/s (ib_write_bw--HDR-loopback--all-sizes--1) at 8 MiB. The
// pass: every pair the first run. The fails: a floor above the real reading;
// the pairs of one node the slower run, at an outlier percent tighter than
// the 3.4% between them (the default 10% lets it pass: both are healthy HDR).
#include <doctest/doctest.h>

#include "controller/validate/check_test_util.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: testbed
connection: {user: root}
hosts:
  node01: {address: 10.9.0.1, interfaces: {ib0: 10.10.0.1/16}}
  node02: {address: 10.9.0.2, interfaces: {ib0: 10.10.0.2/16}}
  node03: {address: 10.9.0.3, interfaces: {ib0: 10.10.0.3/16}}
)";

nlohmann::json IbFacts(double gbps) {
  return {{"ib_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "ACTIVE"}, {"phys_state", "LinkUp"},
                         {"rate_gbps", gbps}, {"link_layer", "InfiniBand"}}}}};
}

struct PeersBench : testing::FakeClusterRun {
  std::string slow;  // the node whose pairs print the slower real run
  PeersBench() {
    inv = testing::InventoryFromText(kInventory);
    for (const char* node : {"node01", "node02", "node03"}) {
      Node(node, IbFacts(200)).outputs["ib_write_bw installed"] = ToolOutput{};
      probed.push_back({node, true, true, ""});
      node_outcomes[node]["ib.ports"] = CheckOutcome::kPass;
      vars[node] = {{"validate_ib_write_bw_message_bytes", 8388608}, {"validate_acceptance_seconds", 20}};
    }
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() != "/usr/bin/ib_write_bw") return out;
      // The client's pair: its own host and the server it reaches (by its ib0 address).
      const std::string server = "node0" + c.argv.back().substr(c.argv.back().size() - 1);
      const bool slow_pair = !slow.empty() && (c.host == slow || server == slow);
      out.out = testing::CapturedFixture(slow_pair ? "ib_write_bw--HDR-loopback--all-sizes--1.txt"
                                                   : "ib_write_bw--HDR-loopback--1.txt");
      return out;
    };
  }
  std::vector<HostCommand> Clients() const {
    std::vector<HostCommand> clients;
    for (const HostCommand& c : ran) {
      if (c.argv.front() == "/usr/bin/ib_write_bw") clients.push_back(c);
    }
    return clients;
  }
};

TEST_CASE("ib.write_bw_peers: the ring's pairs for the soak's time; alike real HDR readings all pass") {
  PeersBench run;
  REQUIRE(run.Phase("ib.write_bw_peers").size() == 3);
  for (const char* node : {"node01", "node02", "node03"}) {
    CAPTURE(node);
    const CheckResult& r = run.Of(node);
    CHECK(r.scope == CheckScope::kNode);
    CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
    CHECK(r.measured == "ib 24056.72 MB/s");
    CHECK(r.threshold == "ib >= 22000 MB/s, >= median - 10%");  // 88% of 200 Gb/s
  }
  CHECK(run.Of("node01").detail ==
        "ib: within 10% of the median 24056.72 MB/s of 3 nodes (best of node01+node02 24056.72 MB/s, node03+node01 24056.72 MB/s)");
  REQUIRE(run.Clients().size() == 3);
  CHECK(run.Clients()[0].argv ==
        Argv{"/usr/bin/ib_write_bw", "-d", "mlx5_0", "-i", "1", "-s", "8388608", "-D", "20", "-F", "10.10.0.1"});
  CHECK(run.Clients()[0].timeout_s == 75);
  const HostCommand& server = run.ran.front();
  CHECK(server.argv[4] == "RuntimeMaxSec=105");
  CHECK(Argv(server.argv.end() - 3, server.argv.end()) == Argv{"-D", "20", "-F"});
  CHECK(run.progress.front() == "ib.write_bw_peers: round 1 of 3 (1 pairs, 20 s)");
}

TEST_CASE("ib.write_bw_peers: the node whose both pairs are slower than its peers' median fails, its neighbours pass") {
  PeersBench run;
  run.slow = "node03";
  for (const char* node : {"node01", "node02", "node03"}) run.vars[node]["validate_ib_write_bw_outlier_percent"] = 2;
  run.Phase("ib.write_bw_peers");
  const CheckResult& slow = run.Of("node03");
  CHECK(slow.outcome == CheckOutcome::kFail);
  CHECK(slow.detail ==
        "ib: 23240.68 MB/s < median 24056.72 MB/s - 2% of 3 nodes (best of node02+node03 23240.68 MB/s, node03+node01 23240.68 MB/s)");
  CHECK(slow.measured == "ib 23240.68 MB/s");
  // node01 is in the slow pair node03+node01 too: its other pair clears it.
  CHECK_MESSAGE(run.Of("node01").outcome == CheckOutcome::kPass, run.Of("node01").detail);
  CHECK(run.Of("node01").detail.find("node03+node01 23240.68 MB/s") != std::string::npos);
  CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
  SUBCASE("at the default 10% the two real HDR runs are peers") {
    PeersBench lenient;
    lenient.slow = "node03";
    lenient.Phase("ib.write_bw_peers");
    CHECK(lenient.Of("node03").outcome == CheckOutcome::kPass);
  }
}

TEST_CASE("ib.write_bw_peers: below the floor every node fails, however alike") {
  PeersBench run;
  for (const char* node : {"node01", "node02", "node03"}) run.vars[node]["validate_ib_write_bw_min_mbps"] = 30000;
  run.Phase("ib.write_bw_peers");
  for (const char* node : {"node01", "node02", "node03"}) {
    CAPTURE(node);
    CHECK(run.Of(node).outcome == CheckOutcome::kFail);
    CHECK(run.Of(node).detail.rfind("ib: 24056.72 MB/s < floor 30000 MB/s (best of ", 0) == 0);
  }
}

TEST_CASE("ib.write_bw_peers: no reading is no pass") {
  PeersBench run;
  SUBCASE("perftest missing, ib.ports not passed: a failure; unreachable, no InfiniBand ports: the node phase's (no result here)") {
    run.Node("node03").outputs["ib_write_bw installed"].exit_code = 1;
    run.probed.push_back({"node04", true, false, "connection refused"});
    run.Node("node04");
    run.probed.push_back({"node05", true, true, ""});
    run.Node("node05", IbFacts(200)).outputs["ib_write_bw installed"] = ToolOutput{};
    run.node_outcomes["node05"]["ib.ports"] = CheckOutcome::kFail;
    run.Phase("ib.write_bw_peers");
    CHECK(run.Of("node03").detail == "perftest's ib_write_bw is not installed on node03");
    CHECK(run.Count("node04") == 0);  // the node phase failed it: "not checked: node04 is unreachable (...)"
    CHECK(run.Of("node05").outcome == CheckOutcome::kFail);  // ib.ports' failure is not in this report: no reading, no pass
    CHECK(run.Of("node05").detail == "not checked: ib.ports did not pass on node05");
    run.probed.push_back({"node06", true, true, ""});
    run.Node("node06");  // no InfiniBand ports
    run.results.clear();
    run.ran.clear();
    run.Phase("ib.write_bw_peers");
    CHECK(run.Count("node06") == 0);  // the node phase skipped it: "no InfiniBand ports on node06"
    CHECK(run.Of("node01").outcome == CheckOutcome::kPass);  // node01+node02: one pair, both nodes' reading
  }
  SUBCASE("a pair whose client failed fails both its nodes, with the client's words") {
    run.answer = [](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() != "/usr/bin/ib_write_bw") return out;
      if (c.host == "node02") {
        out.exit_code = 1;
        out.err = " Couldn't connect to 10.10.0.1:18515\n";
        return out;
      }
      out.out = testing::CapturedFixture("ib_write_bw--HDR-loopback--1.txt");
      return out;
    };
    run.Phase("ib.write_bw_peers");
    CHECK(run.Of("node02").outcome == CheckOutcome::kFail);
    CHECK(run.Of("node02").detail.find("node01+node02: ib_write_bw failed (exit 1)") != std::string::npos);
    CHECK(testing::EvidenceHas(run.Of("node02"), "Couldn't connect"));
    CHECK(run.Of("node01").outcome == CheckOutcome::kFail);
    CHECK(run.Of("node03").outcome == CheckOutcome::kPass);
  }
  SUBCASE("the deadline: rounds without the time fail as not run") {
    run.seconds_left = 30;
    run.Phase("ib.write_bw_peers");
    CHECK(run.Clients().empty());
    CHECK(run.Of("node01").detail.find("deadline") != std::string::npos);
  }
}

TEST_CASE("ib.write_bw_peers is an acceptance check after ib.ports, with its outlier variable") {
  const CheckSpec* spec = FindCheckSpec("ib.write_bw_peers");
  REQUIRE(spec != nullptr);
  CHECK(spec->level == CheckLevel::kAcceptance);
  REQUIRE(ValidateVariables().count("validate_ib_write_bw_outlier_percent") == 1);
  CHECK(ValidateVariables().at("validate_ib_write_bw_outlier_percent").default_value == 10);
}

}  // namespace
}  // namespace clusterctl
