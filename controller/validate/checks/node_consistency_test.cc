// node.consistency's cluster phase on a FakeClusterRun: the versions read
// from each node's facts and DMI, the odd node named with both values, peer
// groups compared apart, ties, and versions a node does not have.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

nlohmann::json Facts(const std::string& kernel, const std::string& driver, const std::string& firmware,
                     const std::string& slurm) {
  nlohmann::json facts = {{"kernel", {{"release", kernel}}}, {"packages", {{"slurmd", slurm}}}};
  if (!driver.empty()) facts["nvidia_driver"] = driver;
  if (!firmware.empty()) facts["ib_devices"] = {{{"device", "mlx5_0"}, {"firmware", firmware}}, {{"device", "mlx5_1"}, {"firmware", firmware}}};
  return facts;
}

struct Bench : testing::FakeClusterRun {
  void Add(const std::string& node, const nlohmann::json& facts, const std::string& bios) {
    Node(node, facts).outputs["dmi bios_version"].out = bios + "\n";
    probed.push_back({node, true, true, ""});
  }
};

TEST_CASE("node.consistency: the node with another kernel and HCA firmware is named with both values") {
  Bench run;
  run.Add("gpu01", Facts("6.1.0-21-amd64", "550.54.15", "28.39.1002", "22.05.8-4"), "1.5.2");
  run.Add("gpu02", Facts("6.1.0-21-amd64", "550.54.15", "28.39.1002", "22.05.8-4"), "1.5.2");
  run.Add("gpu03", Facts("6.1.0-18-amd64", "550.54.15", "28.37.1014", "22.05.8-4"), "1.5.2");
  run.Phase("node.consistency");
  CHECK(run.Of("gpu01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("gpu01").measured ==
        "BIOS 1.5.2, HCA firmware 28.39.1002, NVIDIA driver 550.54.15, Slurm 22.05.8-4, kernel 6.1.0-21-amd64");
  const CheckResult& odd = run.Of("gpu03");
  CHECK(odd.outcome == CheckOutcome::kFail);
  CHECK(odd.detail == "HCA firmware 28.37.1014, 2 of 3 nodes run 28.39.1002; kernel 6.1.0-18-amd64, 2 of 3 nodes run 6.1.0-21-amd64");
}

TEST_CASE("node.consistency: GPU VBIOS (nvidia-smi, every GPU) and the CUDA toolkits (packages) are compared") {
  Bench run;
  for (const char* node : {"gpu01", "gpu02", "gpu03"}) {
    nlohmann::json facts = Facts("6.1.0-21-amd64", "550.54.15", "", "22.05.8-4");
    facts["pci"] = {{"gpu_count", 2}};
    facts["modules"] = {"nvidia"};
    facts["packages"]["cuda-toolkit-12-4"] = "12.4.1-1";
    if (std::string(node) == "gpu03") facts["packages"]["cuda-toolkit-12-6"] = "12.6.3-1";
    run.Add(node, facts, "1.5.2");
    run.Node(node).outputs["nvidia-smi vbios_version"].out =
        std::string(node) == "gpu02" ? "96.00.89.00.01\n96.00.61.00.01\n" : "96.00.89.00.01\n96.00.89.00.01\n";
  }
  run.Phase("node.consistency");
  CHECK(run.Of("gpu01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("gpu01").measured ==
        "BIOS 1.5.2, CUDA 12.4.1-1, GPU VBIOS 96.00.89.00.01, NVIDIA driver 550.54.15, Slurm 22.05.8-4, kernel 6.1.0-21-amd64");
  CHECK(run.Of("gpu02").detail == "GPU VBIOS 96.00.61.00.01,96.00.89.00.01, 2 of 3 nodes run 96.00.89.00.01");
  CHECK(run.Of("gpu03").detail == "CUDA 12.4.1-1,12.6.3-1, 2 of 3 nodes run 12.4.1-1");
  const CheckSpec* spec = FindCheckSpec("node.consistency");
  REQUIRE(spec->probes.size() == 2);
  CHECK(spec->probes[1]->commands.front() == Argv{"nvidia-smi", "--query-gpu=vbios_version", "--format=csv,noheader"});
}

TEST_CASE("node.consistency: groups are compared apart; a tie names who runs what; what a node lacks is not compared") {
  Bench run;
  run.Add("a01", Facts("6.1.0-21-amd64", "", "", "22.05.8-4"), "2.0");
  run.Add("a02", Facts("6.1.0-21-amd64", "", "", "22.05.8-4"), "2.1");
  run.Add("h01", Facts("6.1.0-18-amd64", "550.54.15", "", "22.05.8-4"), "1.0");
  for (const char* node : {"a01", "a02"}) run.vars[node] = {{"validate_peer_group", "cpu"}};
  run.Phase("node.consistency");
  CHECK(run.Of("h01").outcome == CheckOutcome::kPass);  // alone in the default group
  CHECK(run.Of("a01").outcome == CheckOutcome::kFail);
  CHECK(run.Of("a01").detail == "BIOS 2.0: no version most nodes run (2.0 on a01; 2.1 on a02)");
  CHECK(run.Of("a02").outcome == CheckOutcome::kFail);
  CHECK(run.Of("a02").measured.find("NVIDIA driver") == std::string::npos);
}

TEST_CASE("node.consistency: the testbed's simulated driver is no version to compare") {
  Bench run;
  nlohmann::json simulated = Facts("6.1.0-21-amd64", "550.144.03", "", "22.05.8-4");
  simulated["nvidia"] = {{"simulated", true}};
  run.Add("n1", simulated, "1.0");
  run.Add("n2", Facts("6.1.0-21-amd64", "550.127.05", "", "22.05.8-4"), "1.0");
  run.Phase("node.consistency");
  CHECK(run.Of("n1").outcome == CheckOutcome::kPass);
  CHECK(run.Of("n1").measured.find("NVIDIA driver") == std::string::npos);
  CHECK(run.Of("n2").measured.find("NVIDIA driver 550.127.05") != std::string::npos);
}

TEST_CASE("node.consistency: an unreachable node is the node phase's (it failed it); an unreadable DMI leaves BIOS out") {
  Bench run;
  run.Add("n1", Facts("6.1.0-21-amd64", "", "", "22.05.8-4"), "1.0");
  run.Add("n2", Facts("6.1.0-21-amd64", "", "", "22.05.8-4"), "1.0");
  run.Node("n2").outputs["dmi bios_version"].exit_code = 1;
  run.probed.push_back({"n3", true, false, "connection refused"});
  run.Phase("node.consistency");
  CHECK(run.Count("n3") == 0);
  CHECK(run.Of("n1").outcome == CheckOutcome::kPass);
  CHECK(run.Of("n2").measured == "Slurm 22.05.8-4, kernel 6.1.0-21-amd64");
}

}  // namespace
}  // namespace clusterctl
