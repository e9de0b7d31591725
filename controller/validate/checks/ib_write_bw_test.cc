// ib.write_bw's cluster phase on a FakeClusterRun: which nodes it pairs, the
// server, client and stop commands of each round, the address and port and
// message size they use, its verdicts at the slower port's rate and its
// variables, and every way a pair ends without a measurement (a node
// unreachable, the server not started, the deadline). The verdict on
// ib_write_bw's output itself: parsers_test.cc, gpu_findings_test.cc.
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
  node02: {address: 10.9.0.2}
  node03: {address: 10.9.0.3, interfaces: {ib0: 10.10.0.3/16}}
)";

// A node's facts with one active InfiniBand port at `gbps`.
nlohmann::json IbFacts(double gbps) {
  return {{"ib_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "ACTIVE"}, {"phys_state", "LinkUp"},
                         {"rate_gbps", gbps}, {"link_layer", "InfiniBand"}}}}};
}

// A client's output: the HDR loopback capture, 24056.72 MB/s at 8 MiB.
ToolOutput Measured() {
  ToolOutput out;
  out.out = testing::CapturedFixture("ib_write_bw--HDR-loopback--1.txt");
  return out;
}

// Selected nodes with a 200 Gb/s port whose ib.ports passed and that have perftest.
struct PairBench : testing::FakeClusterRun {
  explicit PairBench(std::vector<std::string> nodes = {"node01", "node02", "node03"}) {
    inv = testing::InventoryFromText(kInventory);
    for (const std::string& node : nodes) {
      Node(node, IbFacts(200)).outputs["ib_write_bw installed"] = ToolOutput{};
      probed.push_back({node, true, true, ""});
      node_outcomes[node]["ib.ports"] = CheckOutcome::kPass;
      vars[node] = {{"validate_ib_write_bw_message_bytes", 8388608}};
    }
    answer = [](const HostCommand& c) { return c.argv.front() == "/usr/bin/ib_write_bw" ? Measured() : ToolOutput{}; };
  }
  // The commands that ran, as "host: program" lines, in order.
  std::vector<std::string> Ran() const {
    std::vector<std::string> lines;
    for (const HostCommand& c : ran) lines.push_back(c.host + ": " + c.argv.front());
    return lines;
  }
};

TEST_CASE("ib.write_bw: each node with the next in a ring, in rounds in which no node is in two pairs") {
  PairBench run;
  REQUIRE(run.Phase("ib.write_bw").size() == 3);
  for (const char* pair : {"node01+node02", "node02+node03", "node03+node01"}) {
    CAPTURE(pair);
    const CheckResult& r = run.Of(pair);
    CHECK(r.check == "ib.write_bw");
    CHECK(r.scope == CheckScope::kPair);
    CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
    CHECK(r.measured == "24056.72 MB/s");
    CHECK(r.threshold == ">= 22000 MB/s at 8388608 B");  // 88% of 200 Gb/s
  }
  // Round 1: node01 serves node02 (node03 waits: it would be in two pairs); round 2: node02 serves node03; round 3.
  CHECK(run.Ran() == std::vector<std::string>{
                         "node01: systemd-run", "node02: sleep", "node02: /usr/bin/ib_write_bw", "node01: systemctl",
                         "node02: systemd-run", "node03: sleep", "node03: /usr/bin/ib_write_bw", "node02: systemctl",
                         "node03: systemd-run", "node01: sleep", "node01: /usr/bin/ib_write_bw", "node03: systemctl"});
  const HostCommand& server = run.ran[0];
  REQUIRE(server.argv.size() == 15);
  const std::string unit = server.argv[1].substr(std::string("--unit=").size());
  CHECK(unit.rfind("clusterctl-ib-write-bw-", 0) == 0);
  CHECK(server.argv == Argv{"systemd-run", "--unit=" + unit, "--collect", "-p", "RuntimeMaxSec=90", "/usr/bin/ib_write_bw",
                            "-d", "mlx5_0", "-i", "1", "-s", "8388608", "-D", "5", "-F"});
  CHECK(server.timeout_s == 30);
  CHECK(run.ran[3].argv == Argv{"systemctl", "stop", unit});
  CHECK(run.ran[7].argv[2] != unit);  // each server its own unit
  // The client reaches node01 on its ib0 address, node02 (no ib* interface) on its management address.
  CHECK(run.ran[2].argv == Argv{"/usr/bin/ib_write_bw", "-d", "mlx5_0", "-i", "1", "-s", "8388608", "-D", "5", "-F", "10.10.0.1"});
  CHECK(run.ran[6].argv.back() == "10.9.0.2");
  CHECK(run.ran[10].argv.back() == "10.10.0.3");
}

TEST_CASE("ib.write_bw: the floor follows the slower port and the variables it declares") {
  SUBCASE("the slower port's line rate") {
    PairBench run({"node01", "node02"});
    run.Node("node02") = NodeReadings::FromFacts("node02", IbFacts(100));
    run.Node("node02").outputs["ib_write_bw installed"] = ToolOutput{};
    const CheckResult& r = run.Phase("ib.write_bw").front();
    CHECK(r.subject == "node01+node02");
    CHECK(r.threshold == ">= 11000 MB/s at 8388608 B");
  }
  SUBCASE("validate_ib_write_bw_min_mbps above the measurement fails, naming it") {
    PairBench run({"node01", "node02"});
    run.vars["node02"]["validate_ib_write_bw_min_mbps"] = 30000;  // the client's variables judge the pair
    const CheckResult& r = run.Phase("ib.write_bw").front();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "bandwidth 24056.72 MB/s below the floor");
    CHECK(r.threshold == ">= 30000 MB/s at 8388608 B");
  }
  SUBCASE("the default message size, where the output has no row at it: the last row, named") {
    PairBench run({"node01", "node02"});
    run.vars.clear();
    const CheckResult& r = run.Phase("ib.write_bw").front();
    CHECK(run.ran[0].argv[11] == "65536");
    CHECK(r.threshold == ">= 22000 MB/s at 65536 B");
    CHECK(r.measured == "24056.72 MB/s at 8388608 B");
  }
  SUBCASE("declared by the check") {
    const std::string& declared = FindCheckSpec("ib.write_bw")->variables;
    for (const char* name : {"validate_ib_write_bw_min_mbps", "validate_ib_write_bw_message_bytes"}) {
      CAPTURE(name);
      CHECK(declared.find(std::string(name) + ":") != std::string::npos);
      REQUIRE(ValidateVariables().count(name) == 1);
    }
    CHECK(ValidateVariables().at("validate_ib_write_bw_min_mbps").default_value.is_null());
    CHECK(ValidateVariables().at("validate_ib_write_bw_message_bytes").default_value == 65536);
  }
}

TEST_CASE("ib.write_bw pairs only nodes whose ib.ports passed and that have perftest; an unreachable one fails") {
  PairBench run;
  run.node_outcomes["node02"]["ib.ports"] = CheckOutcome::kFail;
  run.Node("node03").outputs.clear();  // no /usr/bin/ib_write_bw
  run.probed.push_back({"node04", true, false, "ssh: connection refused"});
  run.Node("node04");
  run.probed.push_back({"login01", false, true, ""});  // a helper outside --limit is never paired
  run.Node("login01", IbFacts(200)).outputs["ib_write_bw installed"] = ToolOutput{};
  run.node_outcomes["login01"]["ib.ports"] = CheckOutcome::kPass;
  const std::vector<CheckResult>& results = run.Phase("ib.write_bw");
  REQUIRE(results.size() == 2);
  CHECK(results[0].subject == "node04");
  CHECK(results[0].outcome == CheckOutcome::kFail);
  CHECK(results[0].detail == "not checked: node04 is unreachable (ssh: connection refused)");
  CHECK(results[0].measured == "unknown");
  CHECK(results[1].subject == "testbed");
  CHECK(results[1].outcome == CheckOutcome::kSkip);
  CHECK(results[1].detail == "needs two nodes with healthy InfiniBand ports and perftest's ib_write_bw (found 1)");
  CHECK(run.ran.empty());
}

TEST_CASE("ib.write_bw: a server that did not start, a client that could not run, the deadline") {
  SUBCASE("the server's unit failed to start: the pair fails with systemd-run's words") {
    PairBench run({"node01", "node02"});
    run.answer = [](const HostCommand& c) {
      ToolOutput out = c.argv.front() == "/usr/bin/ib_write_bw" ? Measured() : ToolOutput{};
      if (c.argv.front() == "systemd-run") {
        out.exit_code = 1;
        out.err = "Failed to start transient service unit: Unit clusterctl-ib-write-bw-1-0.service already exists.";
      }
      return out;
    };
    const CheckResult& r = run.Phase("ib.write_bw").front();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "could not start the ib_write_bw server on node01");
    CHECK(testing::EvidenceHas(r, "already exists"));
  }
  SUBCASE("the client did not run: why, as the pair's failure") {
    struct Lost : PairBench {
      std::vector<Result<ToolOutput>> RunCommands(const std::vector<HostCommand>& commands) override {
        std::vector<Result<ToolOutput>> outputs = PairBench::RunCommands(commands);
        for (size_t i = 0; i < commands.size(); ++i) {
          if (commands[i].host == "node02") outputs[i] = Status::Unavailable("not run: node02 could not be reached (lost)");
        }
        return outputs;
      }
    } run;
    run.probed.pop_back();  // node03 not selected: one pair
    const CheckResult& r = run.Phase("ib.write_bw").front();
    CHECK(r.subject == "node01+node02");
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "not run: node02 could not be reached (lost)");
  }
  SUBCASE("ten seconds or fewer left: the rounds not started fail as not run") {
    PairBench run;
    run.answer = [&run](const HostCommand& c) {
      run.seconds_left = 10;  // the first round used the time up
      return c.argv.front() == "/usr/bin/ib_write_bw" ? Measured() : ToolOutput{};
    };
    run.Phase("ib.write_bw");
    CHECK(run.Of("node01+node02").outcome == CheckOutcome::kPass);
    for (const char* pair : {"node02+node03", "node03+node01"}) {
      CAPTURE(pair);
      CHECK(run.Of(pair).outcome == CheckOutcome::kFail);
      CHECK(run.Of(pair).detail == "not run: the validation's deadline (900 s) passed first");
    }
    CHECK(run.ran.size() == 4);  // only the first round's server, sleep, client and stop
  }
}

}  // namespace
}  // namespace clusterctl
