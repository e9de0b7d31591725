// net.iperf3's cluster phase on a FakeClusterRun: who sends to whom on which
// network, the server's and client's commands, the verdicts against the
// floor and the peers' median (a slow sender named), and every way a node
// ends without a reading. The reports are in the shape iperf3 3.x prints
// with -J (end.sum_received.bits_per_second; {"error": ...} when it could
// not run), built here, not captured: net.iperf3 reads only those fields.
#include <doctest/doctest.h>

#include <algorithm>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: testbed
connection: {user: root}
hosts:
  node01: {address: 10.9.0.1, interfaces: {ib0: 10.10.0.1/16}}
  node02: {address: 10.9.0.2, interfaces: {ib0: 10.10.0.2/16}}
  node03: {address: 10.9.0.3}
)";

std::string Report(double gbps) {
  return R"({"start": {"version": "iperf 3.12"}, "end": {"sum_sent": {"bits_per_second": )" + std::to_string(gbps * 1e9 + 1e6) +
         R"(}, "sum_received": {"seconds": 30.0, "bits_per_second": )" + std::to_string(gbps * 1e9) + "}}}";
}

bool Has(const Argv& argv, const std::string& word) { return std::find(argv.begin(), argv.end(), word) != argv.end(); }

struct IperfBench : testing::FakeClusterRun {
  std::map<std::string, double> mgmt_gbps = {{"node01", 9.4}, {"node02", 9.3}, {"node03", 9.41}};
  double ib_gbps = 25;
  IperfBench() {
    inv = testing::InventoryFromText(kInventory);
    for (const char* node : {"node01", "node02", "node03"}) {
      Node(node).outputs["iperf3 installed"] = ToolOutput{};
      probed.push_back({node, true, true, ""});
    }
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() == "/usr/bin/iperf3") out.out = Report(Has(c.argv, "-B") ? ib_gbps : mgmt_gbps.at(c.host));
      return out;
    };
  }
  std::vector<HostCommand> Clients() const {
    std::vector<HostCommand> out;
    for (const HostCommand& c : ran) {
      if (c.argv.front() == "/usr/bin/iperf3") out.push_back(c);
    }
    return out;
  }
};

TEST_CASE("net.iperf3: each node sends once to its ring neighbour on the management network and on each shared IPoIB interface") {
  IperfBench run;
  REQUIRE(run.Phase("net.iperf3").size() == 3);
  for (const char* node : {"node01", "node02", "node03"}) {
    CAPTURE(node);
    CHECK_MESSAGE(run.Of(node).outcome == CheckOutcome::kPass, run.Of(node).detail);
  }
  CHECK(run.Of("node01").measured == "mgmt 9.4 Gb/s, ib0 25 Gb/s");
  CHECK(run.Of("node03").measured == "mgmt 9.41 Gb/s");  // no ib0 in the inventory
  CHECK(run.Of("node01").threshold == "mgmt >= 0.5 Gb/s, >= median - 20%, ib0 >= 1 Gb/s, >= median - 20%");
  // Management: a ring of three (each node a client once); ib0: two nodes, each sends to the other.
  std::vector<std::string> sends;
  for (const HostCommand& c : run.Clients()) sends.push_back(c.host + "->" + c.argv[2]);
  CHECK(sends == std::vector<std::string>{"node02->10.9.0.1", "node03->10.9.0.2", "node01->10.9.0.3",
                                          "node02->10.10.0.1", "node01->10.10.0.2"});
  const HostCommand ib = run.Clients()[3];
  CHECK(ib.argv == Argv{"/usr/bin/iperf3", "-c", "10.10.0.1", "-p", "5201", "-t", "30", "-O", "1", "-J", "-B", "10.10.0.2"});
  const auto server = std::find_if(run.ran.begin(), run.ran.end(), [](const HostCommand& c) { return c.argv.front() == "systemd-run"; });
  REQUIRE(server != run.ran.end());
  CHECK(Argv(server->argv.begin() + 3, server->argv.end()) ==
        Argv{"-p", "RuntimeMaxSec=90", "/usr/bin/iperf3", "-s", "-1", "-p", "5201"});
  CHECK(run.progress.size() == 5);  // a line per round
  CHECK(run.progress.front() == "net.iperf3: round 1 of 5 (mgmt, 1 pairs, 30 s)");
}

TEST_CASE("net.iperf3: a node sending at a third of its peers' median fails, above the floor, naming the receiver") {
  IperfBench run;
  run.mgmt_gbps = {{"node01", 97.1}, {"node02", 31.2}, {"node03", 98}};
  run.Phase("net.iperf3");
  const CheckResult& slow = run.Of("node02");
  CHECK(slow.outcome == CheckOutcome::kFail);
  CHECK(slow.detail == "mgmt: to node01 31.2 Gb/s < median 97.1 Gb/s - 20% of 3 nodes");
  CHECK(run.Of("node01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node03").outcome == CheckOutcome::kPass);
  SUBCASE("within its outlier percent it passes") {
    IperfBench lenient;
    lenient.mgmt_gbps = run.mgmt_gbps;
    lenient.vars["node02"] = {{"validate_iperf3_outlier_percent", 70}};
    lenient.Phase("net.iperf3");
    CHECK(lenient.Of("node02").outcome == CheckOutcome::kPass);
  }
}

TEST_CASE("net.iperf3: below the floor every node fails, however alike; the duration comes from the variable") {
  IperfBench run;
  for (const char* node : {"node01", "node02", "node03"}) {
    run.vars[node] = {{"validate_iperf3_min_gbps", 50}, {"validate_acceptance_seconds", 3}};
  }
  run.Phase("net.iperf3");
  CHECK(run.Of("node03").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node03").detail == "mgmt: to node02 9.41 Gb/s < floor 50 Gb/s");
  CHECK(Has(run.Clients().front().argv, "3"));
  CHECK(run.Clients().front().timeout_s == 33);
}

TEST_CASE("net.iperf3: no reading is no pass: not installed, unreachable, iperf3's error, no report, the deadline") {
  IperfBench run;
  run.Node("node03").outputs["iperf3 installed"].exit_code = 1;
  run.probed.push_back({"node04", true, false, "connection refused"});
  SUBCASE("a node without iperf3 fails; an unreachable one is left to the node phase (it failed it); the others are measured") {
    run.Phase("net.iperf3");
    CHECK(run.Of("node03").detail == "iperf3 is not installed on node03 (the acceptance-tools role installs it: acceptance_tools: true)");
    CHECK(run.Count("node04") == 0);
    CHECK(run.Of("node01").outcome == CheckOutcome::kPass);
  }
  SUBCASE("iperf3's error is the detail; output that is no report fails") {
    run.answer = [](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() != "/usr/bin/iperf3") return out;
      out.exit_code = 1;
      out.out = c.host == "node01" ? R"({"start": {}, "error": "unable to connect to server: Connection refused"})" : "garbage";
      return out;
    };
    run.Phase("net.iperf3");
    CHECK(run.Of("node01").outcome == CheckOutcome::kFail);
    CHECK(run.Of("node01").detail.find("iperf3: unable to connect to server: Connection refused") != std::string::npos);
    CHECK(run.Of("node02").detail.find("iperf3 printed no JSON report") != std::string::npos);
  }
  SUBCASE("rounds the deadline leaves no time for fail as not run") {
    run.seconds_left = 20;
    run.Phase("net.iperf3");
    CHECK(run.Clients().empty());
    CHECK(run.Of("node01").outcome == CheckOutcome::kFail);
    CHECK(run.Of("node01").detail.find("deadline") != std::string::npos);
  }
}

TEST_CASE("net.iperf3 is an acceptance check: validate runs it only at --level acceptance") {
  REQUIRE(FindCheckSpec("net.iperf3") != nullptr);
  CHECK(FindCheckSpec("net.iperf3")->level == CheckLevel::kAcceptance);
}

}  // namespace
}  // namespace clusterctl
