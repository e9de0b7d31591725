// slurm.gpu_job's cluster phase on a FakeClusterRun: the node it runs a GPU
// job on, its verdict, and why each other compute node gets none (a skip
// naming a reported failure, else a failure: no reading, no pass).
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

nlohmann::json Gpus(int n) { return {{"pci", {{"gpu_count", n}}}}; }

// node01: ready, 4 GPUs. node02: no GPUs. node03: munge.decode failed (in the
// report). node04: gpu.driver failed (in the report). node05: gpu.count did
// not pass and nothing says why (not selected, say).
struct GpuJobBench : testing::FakeClusterRun {
  GpuJobBench() {
    usable = {"node01", "node02", "node04", "node05"};
    compute = {"node01", "node02", "node03", "node04", "node05"};
    unusable = {{"node03", "munge.decode failed"}};
    for (const char* node : {"node01", "node03", "node04", "node05"}) Node(node, Gpus(4));
    Node("node02", Gpus(0));
    for (const char* node : {"node01", "node03"}) node_outcomes[node]["gpu.count"] = CheckOutcome::kPass;
    earlier = {Fail("munge.decode", CheckScope::kNode, "node03", "cannot decode"),
               Fail("gpu.driver", CheckScope::kNode, "node04", "not loaded")};
    answer = [](const HostCommand&) {
      ToolOutput out;
      out.out = "GPU 0: NVIDIA H100 (UUID: GPU-0)\nGPU 1: NVIDIA H100 (UUID: GPU-1)\n"
                "GPU 2: NVIDIA H100 (UUID: GPU-2)\nGPU 3: NVIDIA H100 (UUID: GPU-3)\n";
      return out;
    };
  }
  std::map<std::string, CheckResult> ByNode() {
    std::map<std::string, CheckResult> by_node;
    for (const CheckResult& r : Phase("slurm.gpu_job")) {
      CHECK(r.check == "slurm.gpu_job");
      CHECK(r.scope == CheckScope::kNode);
      CHECK(by_node.emplace(r.subject, r).second);
    }
    return by_node;
  }
};

void ChecksTheOthers(std::map<std::string, CheckResult>& by_node) {
  REQUIRE(by_node.size() == 5);
  CHECK(by_node.at("node02").outcome == CheckOutcome::kSkip);
  CHECK(by_node.at("node02").detail == "no GPUs on node02");
  CHECK(by_node.at("node03").outcome == CheckOutcome::kSkip);
  CHECK(by_node.at("node03").detail == "node03 cannot run jobs (munge.decode failed)");
  CHECK(by_node.at("node04").outcome == CheckOutcome::kSkip);
  CHECK(by_node.at("node04").detail == "the GPUs of node04 are not usable (gpu.driver or gpu.count failed)");
  CHECK(by_node.at("node05").outcome == CheckOutcome::kFail);
  CHECK(by_node.at("node05").detail == "not checked: the GPUs of node05 are not usable (gpu.driver or gpu.count failed)");
  CHECK(by_node.at("node05").measured == "unknown");
}

TEST_CASE("slurm.gpu_job lists the GPUs in a job on each node that can take one, and says why not on the others") {
  GpuJobBench run;
  std::map<std::string, CheckResult> by_node = run.ByNode();
  ChecksTheOthers(by_node);
  CHECK_MESSAGE(by_node.at("node01").outcome == CheckOutcome::kPass, by_node.at("node01").detail);
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran.front().host == "login01");
  CHECK(run.ran.front().timeout_s == 180);
  CHECK(run.ran.front().argv == Argv{"srun", "-N", "1", "-w", "node01", "--gres=gpu:4", "--immediate=60", "--time=5",
                                     "-J", "clusterctl-validate", "nvidia-smi", "-L"});
}

TEST_CASE("slurm.gpu_job fails a job that sees fewer GPUs than the node has") {
  GpuJobBench run;
  run.answer = [](const HostCommand&) {
    ToolOutput out;
    out.out = "GPU 0: NVIDIA H100 (UUID: GPU-0)\n";
    return out;
  };
  CheckResult r = run.ByNode().at("node01");
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "a job given all GPUs of node01 sees 1");
}

TEST_CASE("slurm.gpu_job with the submit host unreachable or past the deadline fails the nodes it would have run on") {
  GpuJobBench run;
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
  ChecksTheOthers(by_node);
  CHECK(by_node.at("node01").outcome == CheckOutcome::kFail);
  CHECK(by_node.at("node01").detail == expected);
  CHECK(run.ran.empty());
}

}  // namespace
}  // namespace clusterctl
