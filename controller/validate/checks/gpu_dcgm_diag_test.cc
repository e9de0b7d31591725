// gpu.dcgm_diag: dcgmi diag -r 3 -j read and judged, on real captures
// (tests/fixtures/captured/SOURCES.md): the pass is DCGM 3.1.0's (NVIDIA's own
// nvvs unit test keeps it, with the warning line before the JSON and the null
// entries nvvs writes); the failures are two DCGM 4.5.2 `dcgmi diag -r 2 -j`
// documents from a GB10 DGX Spark (baldwinSPC/glimmer-burnin's testdata,
// kept verbatim there: the software test Fails on persistence mode, memory
// and pcie Pass or, without -p ...is_allowed, Skip; dcgmi exited 226). The
// other failing reports here are EDITED, built in the shapes dcgmi writes
// (dcgmi/Diag.cpp, HelperJsonAddResult: 3.x at a33560c9, 4.x at 72fa3fe) with
// the findings of the real r3 table capture
// dcgmi-diag-r3--8xH100--fail-gpu-memory-cuinit--1.txt: they add a 3.x failing
// document, a failure on one GPU of several, and hardware findings.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "controller/validate/dcgm_diag.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

const char* kCuInit =
    "GPU 0 Error using CUDA API cuInit Check DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun "
    "diagnostics. Unable to initialize CUDA library: 'system not yet initialized'.";

// DCGM 3.x's dcgmi -j: "gpu_id" strings, capitalised statuses, warnings with error ids.
std::string Dcgm3Failing() {
  return std::string(R"js({"DCGM GPU Diagnostic": {"test_categories": [
  {"category": "Deployment", "tests": [{"name": "Denylist", "results": [{"status": "Pass"}]}]},
  {"category": "Hardware", "tests": [{"name": "GPU Memory", "results": [
    {"gpu_id": "0", "status": "Fail", "warnings": [{"warning": ")js") + kCuInit + R"js(", "error_id": 3, "error_category": 6, "error_severity": 2}]},
    {"gpu_id": "1", "status": "Pass", "info": "GPU 1 Allocated 83214188544 bytes (97.1%)"}]}]}],
  "version": "3.3.8"}})js";
}

// DCGM 4.x: "DCGM Diagnostic", results by entity, a test_summary per test.
const char* kDcgm4Failing = R"js({"DCGM Diagnostic": {"test_categories": [
  {"category": "Deployment", "tests": [{"name": "software", "results": [{"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Pass"}],
    "test_summary": {"status": "Pass"}}]},
  {"category": "Hardware", "tests": [{"name": "memory", "results": [
    {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Pass"},
    {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 3, "status": "Fail", "warnings": [{"warning": "GPU 3 DBE", "error_id": 9}], "info": ["GPU 3 Allocated"]}],
    "test_summary": {"status": "Fail"}}]}],
  "version": "4.2.3"}})js";

ToolOutput Output(const std::string& out, int exit_code = 0) {
  ToolOutput o;
  o.out = out;
  o.exit_code = exit_code;
  return o;
}

TEST_CASE("dcgmi diag -j: the real DCGM 3.1.0 report passes: ten tests, the leading warning and null entries passed over") {
  const std::string text = testing::CapturedFixture("dcgmi-diag-r-json--8xGPU-DCGM-3.1.0--pass--1.json");
  auto tests = ParseDcgmDiagJson(text);
  REQUIRE(tests.ok());
  REQUIRE(tests->size() == 10);
  CHECK((*tests)[0].section == "Deployment");
  CHECK((*tests)[0].name == "Denylist");
  CHECK((*tests)[0].result == "Pass");  // nvvs's "PASS"
  CHECK((*tests)[9].name == "software");
  CHECK((*tests)[9].section == "Custom");
  CheckResult r = JudgeDcgmTests("gpu.dcgm_diag", "dcgmi diag -r 3 -j", "n", Output(text), tests);
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured == "10/10 pass");
}

const char* kPersistence =
    "Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode by running \"nvidia-smi -i "
    "<gpuId> -pm 1 \" as root.";
const char* kSram =
    "info: Error getting the SRAM Threshold Count for GPU 0. Status = 0. Value = 9223372036854775794. SRAM Threshold "
    "checking was skipped.";

// The two real DCGM 4.5.2 reports of a GB10, memory and pcie "pass" or "skip".
std::string Gb10(const std::string& memory_pcie) {
  return testing::CapturedFixture("dcgmi-diag-r-json--GB10-DCGM-4.5.2-r2--fail-software-memory-pcie-" + memory_pcie +
                                  "--1.json");
}

// "category/name: result_text" of each test.
std::vector<std::string> Results(const std::vector<DcgmTest>& tests) {
  std::vector<std::string> out;
  for (const DcgmTest& t : tests) out.push_back(t.section + "/" + t.name + ": " + t.result_text);
  return out;
}

// gpu.dcgm_diag's verdict on a level-2 report that dcgmi gave with `exit_code`.
CheckResult Judge(const std::string& text, int exit_code) {
  return JudgeDcgmTests("gpu.dcgm_diag", "dcgmi diag -r 2 -j", "spark", Output(text, exit_code), ParseDcgmDiagJson(text));
}

TEST_CASE("dcgmi diag -j: the real DCGM 4.5.2 GB10 report fails on its software test, its memory and pcie passing") {
  const std::string text = Gb10("pass");
  auto tests = ParseDcgmDiagJson(text);
  REQUIRE(tests.ok());
  CHECK(Results(*tests) ==
        std::vector<std::string>{"Deployment/software: Fail - GPU: 0", "Hardware/memory: Pass", "Integration/pcie: Pass"});
  // The GPU's warning, then the summary's info of no GPU; the summary's copy of the warning once.
  CHECK((*tests)[0].lines == std::vector<std::string>{std::string("GPU 0: ") + kPersistence, kSram});
  CHECK((*tests)[1].lines == std::vector<std::string>{"GPU 0: info: Allocated 112427837082 bytes (87.5%)"});
  CHECK((*tests)[2].lines.size() == 6);
  CheckResult r = Judge(text, 226);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "software: Fail - GPU: 0; dcgmi exit 226");
  CHECK(r.measured == "2/3 pass");
  CHECK(r.evidence ==
        std::vector<std::string>{std::string("GPU 0: ") + kPersistence, kSram, "dcgmi diag -r 2 -j: exit 226"});
}

TEST_CASE("dcgmi diag -j: the real GB10 report without the plugins allowed: software Fail, memory and pcie Skip; EDITED to a passing software test, still no pass") {
  std::string text = Gb10("skip");
  auto tests = ParseDcgmDiagJson(text);
  REQUIRE(tests.ok());
  CHECK((*tests)[1].lines.empty());  // DCGM says no reason for the skip
  CHECK(Results(*tests) ==
        std::vector<std::string>{"Deployment/software: Fail - GPU: 0", "Hardware/memory: Skip", "Integration/pcie: Skip"});
  CheckResult r = Judge(text, 226);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.measured == "0/3 pass");
  CHECK(r.detail == "software: Fail - GPU: 0; no test beyond Deployment ran (memory, pcie: Skip); dcgmi exit 226");

  // EDITED (every "Fail" made "Pass"): persistence mode on, the run would still have tested nothing of the GPU.
  for (size_t at; (at = text.find("\"status\" : \"Fail\"")) != std::string::npos;) {
    text.replace(at, 17, "\"status\" : \"Pass\"");
  }
  CheckResult edited = Judge(text, 0);
  CHECK(edited.outcome == CheckOutcome::kFail);
  CHECK(edited.measured == "1/3 pass");
  CHECK(edited.detail == "no test beyond Deployment ran (memory, pcie: Skip)");
}

TEST_CASE("dcgmi diag -j: EDITED reports: a failed test fails the node naming the test, its GPUs and DCGM's warning (3.x and 4.x)") {
  auto three = ParseDcgmDiagJson(Dcgm3Failing());
  REQUIRE(three.ok());
  CheckResult r3 = JudgeDcgmTests("gpu.dcgm_diag", "dcgmi diag -r 3 -j", "h100", Output(Dcgm3Failing(), 226), three);
  CHECK(r3.outcome == CheckOutcome::kFail);
  CHECK(r3.detail == "GPU Memory: Fail - GPU: 0; dcgmi exit 226");
  REQUIRE_FALSE(r3.evidence.empty());
  CHECK(r3.evidence[0] == std::string("GPU 0: ") + kCuInit);
  CHECK(r3.evidence[1] == "GPU 1: info: GPU 1 Allocated 83214188544 bytes (97.1%)");

  auto four = ParseDcgmDiagJson(kDcgm4Failing);
  REQUIRE(four.ok());
  CHECK((*four)[1].result_text == "Fail - GPU: 3");
  CheckResult r4 = JudgeDcgmTests("gpu.dcgm_diag", "dcgmi diag -r 3 -j", "b200", Output(kDcgm4Failing), four);
  CHECK(r4.outcome == CheckOutcome::kFail);
  CHECK(r4.detail == "memory: Fail - GPU: 3");
  CHECK(r4.evidence == std::vector<std::string>{"GPU 3: GPU 3 DBE", "GPU 3: info: GPU 3 Allocated"});
}

TEST_CASE("dcgmi diag -j: no reading is no pass: a runtime error, no JSON, every test skipped, a status DCGM does not print") {
  auto runtime = ParseDcgmDiagJson(R"js({"DCGM GPU Diagnostic": {"version": "3.3.8", "runtime_error": "Unable to find nvvs"}})js");
  REQUIRE_FALSE(runtime.ok());
  CHECK(runtime.status().message() == "the diagnostic did not run: Unable to find nvvs");
  CHECK_FALSE(ParseDcgmDiagJson("Error: unable to establish a connection to the specified host: localhost").ok());
  CHECK_FALSE(ParseDcgmDiagJson(R"js({"nodes": []})js").ok());
  // NVIDIA/DCGM#139's shape: a T400 whose level-3 tests all said Skip.
  const std::string skipped = R"js({"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [
    {"name": "GPU Memory", "results": [{"gpu_id": "0", "status": "Skip"}]}]}], "version": "3.3.0"}})js";
  CheckResult all_skipped = JudgeDcgmTests("gpu.dcgm_diag", "c", "n", Output(skipped), ParseDcgmDiagJson(skipped));
  CHECK(all_skipped.outcome == CheckOutcome::kFail);
  CHECK(all_skipped.detail == "no test passed (every test skipped)");
  const std::string odd = R"js({"DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [
    {"name": "memory", "results": [{"entity_id": 0, "status": "Pass"}, {"entity_id": 1, "status": "Unknown"}]}]}]}})js";
  CHECK(JudgeDcgmTests("gpu.dcgm_diag", "c", "n", Output(odd), ParseDcgmDiagJson(odd)).outcome == CheckOutcome::kFail);
}

struct DiagBench : testing::FakeClusterRun {
  std::string report = testing::CapturedFixture("dcgmi-diag-r-json--8xGPU-DCGM-3.1.0--pass--1.json");
  DiagBench() {
    nlohmann::json gpu_facts = {{"pci", {{"gpu_count", 8}}}};
    for (const char* node : {"gpu01", "gpu02"}) {
      Node(node, gpu_facts).outputs["dcgmi installed"] = ToolOutput{};
      node_outcomes[node]["gpu.driver"] = CheckOutcome::kPass;
      probed.push_back({node, true, true, ""});
    }
    Node("cpu01");
    probed.push_back({"cpu01", true, true, ""});
    answer = [this](const HostCommand& c) { return Output(c.host == "gpu02" ? Gb10("pass") : report, c.host == "gpu02" ? 226 : 0); };
  }
};

TEST_CASE("gpu.dcgm_diag: every GPU node runs dcgmi diag -r 3 -j at once; the failing node is named; a node without GPUs is left to the node phase") {
  DiagBench run;
  run.Phase("gpu.dcgm_diag");
  REQUIRE(run.ran.size() == 2);
  CHECK(run.ran[0].argv == Argv{"/usr/bin/dcgmi", "diag", "-r", "3", "-j"});
  CHECK(run.ran[0].timeout_s == 7200);
  CHECK(run.Of("gpu01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("gpu02").outcome == CheckOutcome::kFail);
  CHECK(run.Of("gpu02").detail == "software: Fail - GPU: 0; dcgmi exit 226");  // the real GB10 report
  CHECK(run.Of("gpu02").evidence.at(0) == std::string("GPU 0: ") + kPersistence);
  CHECK(run.Count("cpu01") == 0);  // the node phase skipped it: no NVIDIA GPUs on its PCI bus
  CHECK(run.progress == std::vector<std::string>{"gpu.dcgm_diag: dcgmi diag -r 3 on 2 nodes"});
}

TEST_CASE("gpu.dcgm_diag: the testbed's SIMULATED dcgmi, DCGM missing, the driver failed, the level variable") {
  DiagBench run;
  run.vars["gpu01"] = {{"validate_dcgm_diag_level", 1}};
  run.Node("gpu02").outputs["dcgmi installed"].exit_code = 1;
  run.answer = [](const HostCommand&) { return Output("SIMULATED dcgmi: would run DCGM's diagnostic\n"); };
  run.Phase("gpu.dcgm_diag");
  CHECK(run.ran.at(0).argv == Argv{"/usr/bin/dcgmi", "diag", "-r", "1", "-j"});
  CHECK(run.Of("gpu01").outcome == CheckOutcome::kFail);
  CHECK(run.Of("gpu01").detail == "no reading: dcgmi on gpu01 is SIMULATED (the testbed's placeholder)");
  CHECK(run.Of("gpu02").detail == "DCGM is not installed on gpu02 (no /usr/bin/dcgmi; the dcgm role installs it)");

  DiagBench blocked;
  blocked.node_outcomes["gpu01"]["gpu.driver"] = CheckOutcome::kFail;
  blocked.Phase("gpu.dcgm_diag");
  CHECK(blocked.ran.size() == 1);
  CHECK(blocked.Of("gpu01").outcome == CheckOutcome::kFail);  // gpu.driver's failure is not in this report: no skip
  CHECK(blocked.Of("gpu01").detail == "not checked: the NVIDIA driver is not loaded on gpu01 (gpu.driver failed)");
}

}  // namespace
}  // namespace clusterctl
