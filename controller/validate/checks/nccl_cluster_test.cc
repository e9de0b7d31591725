// nccl.cluster's cluster phase on a FakeClusterRun: which nodes its job
// spans, the command, the floor and latency ceiling it judges with (from the
// variables it and nccl.node declare, else the InfiniBand line rate), and the
// ways it ends without a verdict. The verdict on all_reduce_perf's output
// itself: parsers_test.cc and rigor_test.cc (EvaluateNccl).
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// 16 H100 on two GCP A3 Mega nodes: 123 us median small-message latency (TCPXO, not InfiniBand).
const char* kA3Mega = "all_reduce_perf--16xH100-2nodes-GCP-A3Mega--1.txt";

nlohmann::json GpuFacts(int gpus, double ib_gbps = 0) {
  nlohmann::json facts = {{"pci", {{"gpu_count", gpus}}}};
  if (ib_gbps > 0) {
    facts["ib_ports"] = {{{"device", "mlx5_0"}, {"port", 1}, {"state", "ACTIVE"}, {"phys_state", "LinkUp"},
                          {"rate_gbps", ib_gbps}, {"link_layer", "InfiniBand"}}};
  }
  return facts;
}

// node01-node03 usable with 8 GPUs and gpu.count passed; nccl-tests on node01
// and node03; node04 cannot run jobs.
struct NcclBench : testing::FakeClusterRun {
  explicit NcclBench(double ib_gbps = 400) {
    usable = {"node01", "node02", "node03"};
    compute = {"node01", "node02", "node03", "node04"};
    unusable = {{"node04", "slurm.node failed"}};
    for (const std::string& node : compute) {
      Node(node, GpuFacts(8, ib_gbps));
      node_outcomes[node]["gpu.count"] = CheckOutcome::kPass;
    }
    for (const char* node : {"node01", "node03", "node04"}) Node(node).outputs["nccl-tests installed"] = ToolOutput{};
    const std::string text = testing::CapturedFixture(kA3Mega);
    answer = [text](const HostCommand&) {
      ToolOutput out;
      out.out = text;
      return out;
    };
  }
  CheckResult Only() {
    const std::vector<CheckResult>& added = Phase("nccl.cluster");
    REQUIRE(added.size() == 1);
    CHECK(added.front().check == "nccl.cluster");
    CHECK(added.front().subject == "testbed");
    return added.front();
  }
};

TEST_CASE("nccl.cluster runs all_reduce_perf from the submit host across the usable GPU nodes with nccl-tests") {
  NcclBench run;
  CheckResult r = run.Only();
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran.front().host == "login01");
  CHECK(run.ran.front().timeout_s == 900);
  CHECK(run.ran.front().argv == Argv{"srun", "-N", "2", "-w", "node01,node03", "--ntasks-per-node=8", "--gres=gpu:8",
                                     "--mpi=pmix", "--immediate=60", "--time=15", "-J", "clusterctl-validate",
                                     "/usr/local/bin/all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "1"});
  // The floor: 75% of node01's 400 Gb/s InfiniBand port; the latency ceiling: 100 us by default.
  CHECK(r.threshold == "0 wrong, busbw >= 37.5 GB/s, median 8 B-4 KiB <= 100 us, exit 0");
  REQUIRE(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail.find("small-message latency: median 123 us over 8-4096 B") != std::string::npos);
}

TEST_CASE("nccl.cluster takes its limits and command from the first node's variables") {
  NcclBench run;
  SUBCASE("a latency ceiling for a TCPXO fabric passes it") {
    run.vars["node01"] = {{"validate_nccl_small_message_max_us", 200}};
    CheckResult r = run.Only();
    CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
    CHECK(r.threshold == "0 wrong, busbw >= 37.5 GB/s, median 8 B-4 KiB <= 200 us, exit 0");
  }
  SUBCASE("a bus bandwidth floor above the reading fails it") {
    run.vars["node01"] = {{"validate_nccl_small_message_max_us", 200}, {"validate_nccl_busbw_min_gbps", 5000}};
    CheckResult r = run.Only();
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find("below 5000") != std::string::npos);
  }
  SUBCASE("the nccl-tests directory and the largest size") {
    run.vars["node01"] = {{"validate_nccl_tests_dir", "/opt/nccl-tests/build"}, {"validate_nccl_max_bytes", "512M"}};
    run.Only();
    REQUIRE(run.ran.size() == 1);
    const Argv& argv = run.ran.front().argv;
    CHECK(std::find(argv.begin(), argv.end(), "/opt/nccl-tests/build/all_reduce_perf") != argv.end());
    CHECK(std::find(argv.begin(), argv.end(), "512M") != argv.end());
  }
  SUBCASE("without InfiniBand the default floor is 0") {
    NcclBench tcp(0);
    CHECK(tcp.Only().threshold.rfind("0 wrong, busbw >= 0 GB/s", 0) == 0);
  }
  SUBCASE("the latency ceiling is the check's own declared variable") {
    CHECK(FindCheckSpec("nccl.cluster")->variables.find("validate_nccl_small_message_max_us:") != std::string::npos);
    REQUIRE(ValidateVariables().count("validate_nccl_small_message_max_us") == 1);
    CHECK(ValidateVariables().at("validate_nccl_small_message_max_us").default_value == 100);
  }
}

TEST_CASE("nccl.cluster without two usable GPU nodes with nccl-tests runs nothing and says why") {
  NcclBench run;
  SUBCASE("nccl-tests on one of them") {
    run.Node("node03").outputs.clear();
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kSkip);
    CHECK(r.detail == "nccl-tests on only one usable GPU node");
  }
  SUBCASE("node03's GPUs not usable (gpu.count did not pass)") {
    run.node_outcomes["node03"].erase("gpu.count");
    CHECK(run.Only().detail == "nccl-tests on only one usable GPU node");
  }
  SUBCASE("on none") {
    for (const char* node : {"node01", "node03"}) run.Node(node).outputs.clear();
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kSkip);
    CHECK(r.detail == "nccl-tests not installed on any usable GPU node");
  }
  SUBCASE("nodes without GPUs") {
    for (const char* node : {"node01", "node03"}) run.Node(node).pci_gpus = 0;
    CHECK(run.Only().detail == "nccl-tests not installed on any usable GPU node");
  }
  CHECK(run.ran.empty());
}

TEST_CASE("nccl.cluster: the deadline passed first is a failure saying so") {
  NcclBench run;
  run.deadline_passed = true;
  CheckResult r = run.Only();
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "not run: the validation's deadline (900 s) passed first");
}

}  // namespace
}  // namespace clusterctl
