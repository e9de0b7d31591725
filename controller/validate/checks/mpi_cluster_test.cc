// mpi.cluster's cluster phase on a FakeClusterRun: which nodes it uses, the
// job it submits, how its limits follow the nodes' InfiniBand ports and the
// inventory's variables, and every way it ends without a verdict. The
// verdict on the program's output itself: mpi_ring_test.cc.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

const char* kHealthy =
    "ring: ok ranks=2 nodes=node01,node02\n"
    "pingpong: latency_us=2.1 bandwidth_mbps=11000 between=node01,node02\n";

// A cluster whose submit host has the program and whose compute nodes are usable.
struct MpiBench : testing::FakeClusterRun {
  explicit MpiBench(std::vector<std::string> nodes = {"node01", "node02", "node03"},
                    const nlohmann::json& facts = nlohmann::json::object()) {
    usable = std::move(nodes);
    for (const std::string& node : usable) Node(node, facts);
    Node("login01").outputs["MPI test program built"] = ToolOutput{};
    answer = [](const HostCommand&) {
      ToolOutput out;
      out.out = kHealthy;
      return out;
    };
  }
  CheckResult Only() {
    const std::vector<CheckResult>& added = Phase("mpi.cluster");
    REQUIRE(added.size() == 1);
    CHECK(added.front().check == "mpi.cluster");
    CHECK(added.front().subject == "testbed");
    return added.front();
  }
};

// A node's facts with one active InfiniBand port at `gbps`.
nlohmann::json IbFacts(double gbps) {
  return {{"ib_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "ACTIVE"}, {"phys_state", "LinkUp"},
                         {"rate_gbps", gbps}, {"link_layer", "InfiniBand"}}}}};
}

TEST_CASE("mpi.cluster submits one job from the submit host on the first two usable nodes") {
  MpiBench run;
  CheckResult r = run.Only();
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran.front().host == "login01");
  CHECK(run.ran.front().timeout_s == 180);
  CHECK(run.ran.front().argv == Argv{"srun", "-N", "2", "-w", "node01,node02", "--ntasks-per-node=1", "--mpi=pmix",
                                     "--bcast=/tmp/clusterctl-mpi-ring", "--immediate=60", "--time=5", "-J",
                                     "clusterctl-validate", "/usr/local/lib/clusterctl/mpi-ring"});
  CHECK(r.measured == "2.1 us, 11000 MB/s");
  CHECK(r.threshold == "<= 100 us");  // no InfiniBand: TCP's ceiling, bandwidth not judged
  CHECK(r.detail.find("bandwidth not judged: no InfiniBand port on both nodes") != std::string::npos);
}

TEST_CASE("mpi.cluster over InfiniBand: the slower node's port sets the floor") {
  MpiBench run({"node01", "node02"}, IbFacts(200));
  run.Node("node02") = NodeReadings::FromFacts("node02", IbFacts(100));
  CheckResult r = run.Only();
  CHECK(r.threshold == "<= 10 us, >= 10000 MB/s");  // 80% of 100 Gb/s
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
}

TEST_CASE("mpi.cluster takes its limits from the variables it declares") {
  MpiBench run;
  SUBCASE("a bandwidth floor over TCP is judged") {
    run.vars["node01"] = {{"validate_mpi_bandwidth_min_mbps", 20000}};
    CheckResult r = run.Only();
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "ping-pong bandwidth between node01 and node02 is 11000 MB/s, under 20000 MB/s "
                      "(validate_mpi_bandwidth_min_mbps)");
  }
  SUBCASE("a latency ceiling") {
    run.vars["node01"] = {{"validate_mpi_latency_max_us", 1}};
    CHECK(run.Only().threshold == "<= 1 us");
  }
  SUBCASE("declared by the check, with the defaults validate computes") {
    const std::string& declared = FindCheckSpec("mpi.cluster")->variables;
    CHECK(declared.find("validate_mpi_latency_max_us:") != std::string::npos);
    CHECK(declared.find("validate_mpi_bandwidth_min_mbps:") != std::string::npos);
    for (const char* name : {"validate_mpi_latency_max_us", "validate_mpi_bandwidth_min_mbps"}) {
      CAPTURE(name);
      REQUIRE(ValidateVariables().count(name) == 1);  // so inventory check knows it and docs/roles.md lists it
      CHECK(ValidateVariables().at(name).default_value.is_null());
    }
  }
}

TEST_CASE("mpi.cluster without two usable nodes or the program runs nothing and says why") {
  SUBCASE("no usable compute node fails") {
    MpiBench run(std::vector<std::string>{});
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == kNoUsableComputeNode);
    CHECK(run.ran.empty());
  }
  SUBCASE("one usable node: a skip") {
    MpiBench run({"node02"});
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kSkip);
    CHECK(r.detail == "only node02 can run jobs: MPI across nodes needs two");
    CHECK(run.ran.empty());
  }
  SUBCASE("the program not built on the submit host: a skip naming it") {
    MpiBench run;
    run.Node("login01").outputs.clear();
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kSkip);
    CHECK(r.detail == "the MPI test program is not built on the submit host login01 "
                      "(/usr/local/lib/clusterctl/mpi-ring: the mpi role builds it)");
    CHECK(run.ran.empty());
  }
  SUBCASE("the deadline passed first: a failure saying so") {
    MpiBench run;
    run.deadline_passed = true;
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "not run: the validation's deadline (900 s) passed first");
  }
}

TEST_CASE("mpi.cluster fails a job that failed, with its evidence") {
  MpiBench run;
  run.answer = [](const HostCommand&) {
    ToolOutput out;
    out.exit_code = 1;
    out.err = "srun: error: node02: task 1: Exited with exit code 1";
    return out;
  };
  CheckResult r = run.Only();
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "the MPI job across node01,node02 failed (exit 1)");
}

}  // namespace
}  // namespace clusterctl
