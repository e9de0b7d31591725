// The GPU checks on what a real NVIDIA H100 printed: captured on the GPU
// machine lent to this project (one H100 80GB HBM3 passed through to a VM,
// open kernel module 580.159.04, Ubuntu 24.04, no systemd, no journald, no
// InfiniBand), with the static agent's own facts from the same machine
// (tests/fixtures/captured/SOURCES.md, "Captured on the project's GPU
// machine"). The healthy GPU passes what it can show; what it cannot show
// (NVLink in a one-GPU VM) is never a pass.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "controller/validate/check_test_util.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/nvidia_smi.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

std::string Fixture(const std::string& name) { return testing::CapturedFixture(name); }

const char* kQuery = "nvidia-smi-q--H100-80GB-HBM3--driver580-1GPU-VM--1.txt";

nlohmann::json AgentFacts() {
  return nlohmann::json::parse(Fixture("clusterctl-agent-facts--H100-80GB-HBM3--1GPU-VM--1.json"));
}

const CheckResult& Named(const std::vector<CheckResult>& results, const std::string& check) {
  for (const CheckResult& r : results) {
    if (r.check == check) return r;
  }
  FAIL("no " << check << " result");
  static CheckResult none;
  return none;
}

}  // namespace

TEST_CASE("real H100: the agent's facts agree with nvidia-smi, and gpu.driver passes on them") {
  nlohmann::json facts = AgentFacts();
  CHECK(facts["pci"]["gpu_count"] == 1);
  CHECK(facts["pci"]["gpus"][0]["device_id"] == "2330");
  CHECK(facts["nvidia"]["simulated"] == false);
  CHECK(facts["nvidia"]["kernel_modules"] == "open");
  auto report = ParseNvidiaSmiQuery(Fixture(kQuery));
  REQUIRE(report.ok());
  CHECK(report->driver_version == facts["nvidia_driver"].get<std::string>());
  CHECK(report->gpus[0].name == facts["nvidia"]["gpus"][0]["model"].get<std::string>());
  std::vector<std::string> modules = facts["modules"].get<std::vector<std::string>>();
  CheckResult driver = EvaluateGpuDriver("vm", facts["pci"]["gpu_count"], modules, facts["nvidia_driver"]);
  CHECK(driver.outcome == CheckOutcome::kPass);
  CHECK(driver.measured.find("580.159.04") != std::string::npos);
}

TEST_CASE("real H100: count, persistence, ECC, PCIe and clocks pass on driver 580's nvidia-smi -q") {
  std::string text = Fixture(kQuery);
  auto report = ParseNvidiaSmiQuery(text);
  REQUIRE(report.ok());
  REQUIRE(report->GpuCount() == 1);
  std::vector<CheckResult> health = EvaluateGpuHealth("vm", report, text, 1, EccPolicy{});
  CHECK(Named(health, "gpu.count").outcome == CheckOutcome::kPass);
  CHECK(Named(health, "gpu.persistence").outcome == CheckOutcome::kPass);
  CHECK(Named(health, "gpu.ecc").outcome == CheckOutcome::kPass);
  CheckResult pcie = EvaluateGpuPcie("vm", *report, PcieFloor{});
  CHECK(pcie.outcome == CheckOutcome::kPass);
  CHECK(pcie.measured.find("16") != std::string::npos);
  CHECK(EvaluateGpuClocks("vm", *report).outcome == CheckOutcome::kPass);
  // The same GPU expected twice: the count fails, naming both numbers.
  CheckResult two = Named(EvaluateGpuHealth("vm", report, text, 2, EccPolicy{}), "gpu.count");
  CHECK(two.outcome == CheckOutcome::kFail);
}

TEST_CASE("real H100: the XML report of the same GPU reads the same") {
  auto text = ParseNvidiaSmiQuery(Fixture(kQuery));
  auto xml = ParseNvidiaSmiXml(Fixture("nvidia-smi-q-x--H100-80GB-HBM3--driver580-1GPU-VM--1.xml"));
  REQUIRE(text.ok());
  REQUIRE(xml.ok());
  REQUIRE(xml->GpuCount() == 1);
  CHECK(xml->gpus[0].name == text->gpus[0].name);
  CHECK(xml->driver_version == text->driver_version);
  CHECK(xml->gpus[0].ecc_enabled == text->gpus[0].ecc_enabled);
}

TEST_CASE("real H100: `nvidia-smi nvlink -s` printing nothing (one GPU in a VM) is no reading, not a pass") {
  auto report = ParseNvidiaSmiQuery(Fixture(kQuery));
  REQUIRE(report.ok());
  std::string empty = Fixture("nvidia-smi-nvlink-s--H100-80GB-HBM3--1GPU-VM-empty--1.txt");
  REQUIRE(empty.empty());
  CheckResult nvlink = EvaluateGpuNvlink("vm", testing::Output(empty), *report, 0, NvlinkExpectation{});
  CHECK(nvlink.outcome != CheckOutcome::kPass);
}

}  // namespace clusterctl
