// The GPU checks read the variables their specs declare (`.variables`) from
// the host's variables, as validate and clusterctl-health hand them over:
// each setting below changes the verdict on a real capture
// (tests/fixtures/captured), so a check that ignored its variable fails here.
#include <doctest/doctest.h>

#include "common/json_text.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// A node with `gpus` GPUs on the PCI bus and the driver loaded, whose
// nvidia-smi -q printed the capture `smi`.
testing::SpecBench GpuNode(int gpus, const std::string& smi) {
  testing::SpecBench bench;
  bench.node = NodeReadings::FromFacts(
      "gpu01", {{"pci", {{"gpu_count", gpus}}}, {"modules", {"nvidia"}}, {"nvidia_driver", "550.127.05"}});
  bench.Reads("nvidia-smi -q", testing::CapturedFixture(smi));
  return bench;
}

bool Declares(const std::string& check, const std::string& variable) {
  const CheckSpec* spec = FindCheckSpec(check);
  REQUIRE(spec != nullptr);
  return spec->variables.find("\n" + variable + ":") != std::string::npos;
}

TEST_CASE("gpu.count: validate_gpus_expected from the inventory, else the PCI count") {
  CHECK(Declares("gpu.count", "validate_gpus_expected"));
  testing::SpecBench bench = GpuNode(1, "nvidia-smi-q--H100-80GB-HBM3--1.txt");
  CheckResult pci = bench.Judge("gpu.count");
  CHECK_MESSAGE(pci.outcome == CheckOutcome::kPass, pci.detail);
  CHECK(pci.threshold == "== 1 (PCI)");
  bench.vars["validate_gpus_expected"] = 2;
  CheckResult inventory = bench.Judge("gpu.count");
  CHECK(inventory.outcome == CheckOutcome::kFail);
  CHECK(inventory.detail == "PCI detection finds 1 GPUs, the inventory expects 2");
  CHECK(inventory.threshold == "== 2 (inventory)");
  bench.vars["validate_gpus_expected"] = 1;
  CHECK(bench.Judge("gpu.count").threshold == "== 1 (inventory)");
}

TEST_CASE("gpu.ecc: validate_gpu_aggregate_uncorrectable_max and validate_gpu_ecc_required") {
  CHECK(Declares("gpu.ecc", "validate_gpu_aggregate_uncorrectable_max"));
  CHECK(Declares("gpu.ecc", "validate_gpu_ecc_required"));
  testing::SpecBench gh200 = GpuNode(1, "nvidia-smi-q--GH200-480GB--ecc-dram-uncorrectable--1.txt");
  CheckResult strict = gh200.Judge("gpu.ecc");
  CHECK(strict.outcome == CheckOutcome::kFail);
  CHECK(strict.detail.find("1 aggregate uncorrectable") != std::string::npos);
  gh200.vars["validate_gpu_aggregate_uncorrectable_max"] = 1;
  CheckResult lenient = gh200.Judge("gpu.ecc");
  CHECK_MESSAGE(lenient.outcome == CheckOutcome::kPass, lenient.detail);
  CHECK(lenient.threshold == "ECC on, volatile uncorrectable == 0, aggregate <= 1, no pending retirement/remap");

  testing::SpecBench rtx = GpuNode(1, "nvidia-smi-q--RTX-5090--ecc-NA-swpowercap-pcie-x8--1.txt");
  CHECK(rtx.Judge("gpu.ecc").outcome == CheckOutcome::kFail);
  rtx.vars["validate_gpu_ecc_required"] = false;
  CheckResult allowed = rtx.Judge("gpu.ecc");
  CHECK(allowed.outcome == CheckOutcome::kSkip);
  CHECK(allowed.detail == "ECC is off or absent on every GPU of gpu01 and validate_gpu_ecc_required is false");
}

TEST_CASE("gpu.xid: validate_gpu_xid_ignore leaves the codes it lists uncounted") {
  CHECK(Declares("gpu.xid", "validate_gpu_xid_ignore"));
  testing::SpecBench bench = GpuNode(1, "nvidia-smi-q--H100-80GB-HBM3--1.txt");
  bench.Reads("kernel log NVRM", "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n");
  bench.Reads("kernel log last line", "2026-11-23T10:00:00.000000+0000 node01 kernel: nvidia-nvswitch: Probing device\n");
  CHECK(bench.Judge("gpu.xid").outcome == CheckOutcome::kFail);
  bench.vars["validate_gpu_xid_ignore"] = {13, 79};
  CheckResult ignored = bench.Judge("gpu.xid");
  CHECK_MESSAGE(ignored.outcome == CheckOutcome::kPass, ignored.detail);
  CHECK(ignored.detail.find("ignored (validate_gpu_xid_ignore): Xid 79 x1") != std::string::npos);
}

TEST_CASE("gpu.pcie: validate_gpu_pcie_width_min and validate_gpu_pcie_gen_min replace each GPU's maximum") {
  CHECK(Declares("gpu.pcie", "validate_gpu_pcie_gen_min"));
  CHECK(Declares("gpu.pcie", "validate_gpu_pcie_width_min"));
  testing::SpecBench bench = GpuNode(1, "nvidia-smi-q--L4--pcie-x8-of-x16--1.txt");
  CheckResult narrow = bench.Judge("gpu.pcie");
  CHECK(narrow.outcome == CheckOutcome::kFail);
  CHECK(narrow.detail.find("link width x8 of x16") != std::string::npos);
  bench.vars["validate_gpu_pcie_width_min"] = 8;
  CheckResult wired = bench.Judge("gpu.pcie");
  CHECK_MESSAGE(wired.outcome == CheckOutcome::kPass, wired.detail);
  CHECK(wired.threshold == "width x8, generation max");
  bench.vars["validate_gpu_pcie_gen_min"] = 3;
  CHECK(bench.Judge("gpu.pcie").threshold == "width x8, generation Gen3");
}

TEST_CASE("gpu.nvlink: validate_gpu_nvlinks and validate_gpu_nvlink_gbps replace the node's own figures") {
  CHECK(Declares("gpu.nvlink", "validate_gpu_nvlinks"));
  CHECK(Declares("gpu.nvlink", "validate_gpu_nvlink_gbps"));
  testing::SpecBench bench = GpuNode(2, "nvidia-smi-q--H100-80GB-HBM3--1.txt");
  bench.Reads("nvidia-smi nvlink -s", testing::CapturedFixture("nvidia-smi-nvlink-s--2xH100-PCIe-NVLink-bridge--6-inactive--1.txt"));
  CheckResult bridged = bench.Judge("gpu.nvlink");
  CHECK_MESSAGE(bridged.outcome == CheckOutcome::kPass, bridged.detail);
  bench.vars["validate_gpu_nvlinks"] = 18;
  CheckResult eighteen = bench.Judge("gpu.nvlink");
  CHECK(eighteen.outcome == CheckOutcome::kFail);
  CHECK(eighteen.threshold.rfind("18 links per GPU (validate_gpu_nvlinks)", 0) == 0);
  bench.vars.erase("validate_gpu_nvlinks");
  bench.vars["validate_gpu_nvlink_gbps"] = 1000;
  CheckResult slow = bench.Judge("gpu.nvlink");
  CHECK(slow.outcome == CheckOutcome::kFail);
  CHECK(slow.detail.find("below 1000 GB/s") != std::string::npos);
}

// What the thresholds' reader refused before the variables moved into the
// specs, their declarations refuse (`inventory check` and every command that
// loads the inventory, before any check runs): each bad value names the variable.
TEST_CASE("the node checks' variables refuse a bad value by their declarations") {
  const std::vector<std::pair<std::string, nlohmann::json>> bad = {
      {"validate_clock_offset_max_ms", -1},        {"validate_clock_offset_max_ms", "many"},
      {"validate_gpus_expected", -1},              {"validate_gpus_expected", "8"},
      {"validate_gpu_aggregate_uncorrectable_max", -1},
      {"validate_gpu_ecc_required", "yes"},        {"validate_gpu_xid_ignore", 13},
      {"validate_gpu_xid_ignore", {"13"}},         {"validate_gpu_pcie_gen_min", 0},
      {"validate_gpu_pcie_width_min", 0},          {"validate_gpu_nvlinks", -1},
      {"validate_gpu_nvlink_gbps", -1},            {"validate_gpu_nvlink_gbps", "fast"}};
  for (const auto& [name, value] : bad) {
    CAPTURE(name);
    const std::string shown = JsonText(value);
    CAPTURE(shown);
    auto declared = ValidateVariables().find(name);
    REQUIRE(declared != ValidateVariables().end());
    std::vector<std::string> problems = CheckVariableValue(declared->second, value, name, {});
    REQUIRE_FALSE(problems.empty());
    CHECK(problems.front().rfind(name, 0) == 0);
    // The default passes its own declaration.
    CHECK(CheckVariableValue(declared->second, declared->second.default_value, name, {}).empty());
  }
}

}  // namespace
}  // namespace clusterctl
