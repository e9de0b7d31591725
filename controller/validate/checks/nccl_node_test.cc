// nccl.node's cluster phase on a FakeClusterRun: the job on each node with
// two GPUs or more and nccl-tests, the floor it judges with (its variable,
// else the GPU model's), and why each other compute node gets none. The
// verdict on all_reduce_perf's output itself: parsers_test.cc, rigor_test.cc.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

nlohmann::json Gpus(int n) { return {{"pci", {{"gpu_count", n}}}}; }

// node01: 8 GPUs and nccl-tests. node02: one GPU. node03: 2 GPUs, no
// nccl-tests. node04: cannot run jobs (slurm.node failed, in the report).
struct NcclNodeBench : testing::FakeClusterRun {
  NcclNodeBench() {
    usable = {"node01", "node02", "node03"};
    compute = {"node01", "node02", "node03", "node04"};
    unusable = {{"node04", "slurm.node failed"}};
    earlier = {Fail("slurm.node", CheckScope::kNode, "node04", "drained")};
    Node("node01", Gpus(8)).outputs["nccl-tests installed"] = ToolOutput{};
    Node("node02", Gpus(1)).outputs["nccl-tests installed"] = ToolOutput{};
    Node("node03", Gpus(2));
    Node("node04", Gpus(8));
    for (const std::string& node : compute) node_outcomes[node]["gpu.count"] = CheckOutcome::kPass;
    const std::string text = testing::CapturedFixture("all_reduce_perf--16xH100-2nodes-GCP-A3Mega--1.txt");
    answer = [text](const HostCommand&) {
      ToolOutput out;
      out.out = text;
      return out;
    };
  }
  std::map<std::string, CheckResult> ByNode() {
    std::map<std::string, CheckResult> by_node;
    for (const CheckResult& r : Phase("nccl.node")) {
      CHECK(r.check == "nccl.node");
      CHECK(by_node.emplace(r.subject, r).second);
    }
    REQUIRE(by_node.size() == 4);
    return by_node;
  }
};

TEST_CASE("nccl.node runs all_reduce_perf over all GPUs of each ready node and says why not on the others") {
  NcclNodeBench run;
  run.vars["node03"] = {{"validate_nccl_tests_dir", "/opt/nccl/bin"}};
  std::map<std::string, CheckResult> by_node = run.ByNode();
  CHECK(by_node.at("node02").outcome == CheckOutcome::kSkip);
  CHECK(by_node.at("node02").detail ==
        "one GPU on node02: there is no all_reduce within the node (nccl.cluster measures it across nodes)");
  CHECK(by_node.at("node03").outcome == CheckOutcome::kSkip);
  CHECK(by_node.at("node03").detail == "nccl-tests not installed on node03 (/opt/nccl/bin/all_reduce_perf)");
  CHECK(by_node.at("node04").outcome == CheckOutcome::kSkip);
  CHECK(by_node.at("node04").detail == "node04 cannot run jobs (slurm.node failed)");
  const CheckResult& r = by_node.at("node01");
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  // No nvidia-smi report: an unknown model's floor (a PCIe card's).
  CHECK(r.threshold == "0 wrong, busbw >= 8 GB/s, exit 0");
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran.front().host == "login01");
  CHECK(run.ran.front().timeout_s == 900);
  CHECK(run.ran.front().argv == Argv{"srun", "-N", "1", "-w", "node01", "--gres=gpu:8", "--immediate=60", "--time=15",
                                     "-J", "clusterctl-validate", "/usr/local/bin/all_reduce_perf", "-b", "8", "-e", "1G",
                                     "-f", "2", "-g", "8"});
}

TEST_CASE("nccl.node takes its floor and command from the node's variables") {
  NcclNodeBench run;
  run.vars["node01"] = {{"validate_nccl_busbw_min_gbps", 5000}, {"validate_nccl_max_bytes", "8G"},
                        {"validate_nccl_tests_dir", "/opt/nccl/bin"}};
  const CheckResult r = run.ByNode().at("node01");
  REQUIRE(r.outcome == CheckOutcome::kFail);
  CHECK(r.threshold == "0 wrong, busbw >= 5000 GB/s, exit 0");
  CHECK(r.detail.find("below 5000") != std::string::npos);
  REQUIRE(run.ran.size() == 1);
  const Argv& argv = run.ran.front().argv;
  CHECK(std::find(argv.begin(), argv.end(), "/opt/nccl/bin/all_reduce_perf") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "8G") != argv.end());
  for (const char* name : {"validate_nccl_busbw_min_gbps", "validate_nccl_tests_dir", "validate_nccl_max_bytes"}) {
    CAPTURE(name);
    CHECK(FindCheckSpec("nccl.node")->variables.find(std::string(name) + ":") != std::string::npos);
    CHECK(ValidateVariables().count(name) == 1);
  }
}

TEST_CASE("nccl.node with the submit host unreachable or past the deadline fails the nodes it would have run on") {
  NcclNodeBench run;
  std::string expected;
  SUBCASE("submit host unreachable") {
    run.unreachable = {"login01"};
    expected = "the submit host login01 is unreachable";
  }
  SUBCASE("deadline") {
    run.deadline_passed = true;
    expected = "not run: the validation's deadline (900 s) passed first";
  }
  std::map<std::string, CheckResult> by_node = run.ByNode();
  CHECK(by_node.at("node01").outcome == CheckOutcome::kFail);
  CHECK(by_node.at("node01").detail == expected);
  CHECK(by_node.at("node02").outcome == CheckOutcome::kSkip);
  CHECK(run.ran.empty());
}

}  // namespace
}  // namespace clusterctl
