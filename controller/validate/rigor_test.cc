// The classes of mistake a validator must not make (docs/validation.md, "No
// reading, no pass"), each on real captures from tests/fixtures/captured
// (SOURCES.md says where each came from). Where no public capture shows a
// case, the test derives it from a real capture by one named edit, said in
// the test.
#include <doctest/doctest.h>

#include <algorithm>

#include "common/strings.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/dcgm_diag.h"
#include "controller/validate/nccl_tests.h"
#include "controller/validate/nvidia_smi.h"
#include "controller/validate/check_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// A GPUDirect-TCPX(O) fabric's small-message latency ceiling (validate_nccl_small_message_max_us: 200).
constexpr double kTcpxoSmallMessageMaxUs = 200;

std::string Fixture(const std::string& name) { return testing::CapturedFixture(name); }

using testing::EvidenceHas;
using testing::Output;

bool Has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

CheckResult Ecc(const std::string& text, const EccPolicy& ecc = EccPolicy{}) { return testing::EccResult(text, ecc); }

// Replaces the first occurrence of `from` after `anchor` (a real capture, edited once).
std::string Edited(std::string text, const std::string& anchor, const std::string& from, const std::string& to) {
  size_t at = text.find(from, text.find(anchor));
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Every uncorrectable counter of the ECC Errors' Volatile block set to N/A.
std::string VolatileUncorrectableNa(std::string text) {
  size_t start = text.find("Volatile\n", text.find("ECC Errors"));
  REQUIRE(start != std::string::npos);
  for (size_t at = text.find("Uncorrectable", start); at != std::string::npos && at < text.find("Aggregate\n", start);
       at = text.find("Uncorrectable", at + 1)) {
    size_t eol = text.find('\n', at);
    size_t colon = text.rfind(": ", eol);
    text.replace(colon + 2, eol - colon - 2, "N/A");
  }
  return text;
}

// A -q excerpt (a GPU's lines without the document around them) as nvidia-smi -q prints one GPU.
std::string AsQueryDocument(const std::string& excerpt, int indent) {
  std::string doc = "Attached GPUs                         : 1\nGPU 00000000:1A:00.0\n";
  for (const std::string& line : Split(excerpt, '\n')) doc += std::string(static_cast<size_t>(indent), ' ') + line + "\n";
  return doc;
}

}  // namespace

// ---- ECC: a counter that reads N/A is unknown, not zero ----

TEST_CASE("gpu.ecc: an RTX 5090 whose ECC mode and counters read N/A is unknown, not '0 uncorrectable'") {
  std::string text = Fixture("nvidia-smi-q--RTX-5090--ecc-NA-swpowercap-pcie-x8--1.txt");
  auto report = ParseNvidiaSmiQuery(text);
  REQUIRE(report.ok());
  CHECK_FALSE(report->gpus[0].ecc_enabled.has_value());
  CHECK(report->gpus[0].ecc_mode == "N/A");
  CHECK_FALSE(report->gpus[0].volatile_uncorrectable.has_value());
  CheckResult r = Ecc(text);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.measured == "unknown");
  CHECK(Has(r.detail, "ECC mode unknown (ECC Mode: N/A)"));
  // A site that runs GPUs without ECC says so per group: then ECC is not judged (a skip, never a pass).
  EccPolicy no_ecc;
  no_ecc.required = false;
  CheckResult allowed = Ecc(text, no_ecc);
  CHECK(allowed.outcome == CheckOutcome::kSkip);
  CHECK(Has(allowed.detail, "validate_gpu_ecc_required is false"));
}

TEST_CASE("gpu.ecc: ECC disabled on a data-centre GPU fails; counters unreadable with ECC on are unknown") {
  std::string h100 = Fixture("nvidia-smi-q--H100-80GB-HBM3--1.txt");
  REQUIRE(Ecc(h100).outcome == CheckOutcome::kPass);
  CHECK(Has(Ecc(h100).detail, "ECC on 1/1 GPUs"));
  // Derived: the same capture with "ECC Mode / Current" Disabled.
  CheckResult off = Ecc(Edited(h100, "ECC Mode", "Enabled", "Disabled"));
  CHECK(off.outcome == CheckOutcome::kFail);
  CHECK(Has(off.detail, "ECC is disabled (ECC Mode: Disabled)"));
  // Derived: every volatile counter N/A while ECC is on: nothing was read.
  std::string text = VolatileUncorrectableNa(h100);
  CheckResult na = Ecc(text);
  CHECK(na.outcome == CheckOutcome::kFail);
  CHECK(na.measured == "unknown");
  CHECK(Has(na.detail, "Volatile: no uncorrectable counter reads a number"));
  // Derived: a counter that exists and cannot be read.
  CheckResult error = Ecc(Edited(h100, "Aggregate\n", "DRAM Uncorrectable                         : 0",
                                 "DRAM Uncorrectable                         : [Unknown Error]"));
  CHECK(error.outcome == CheckOutcome::kFail);
  CHECK(Has(error.detail, "[Unknown Error]"));
}

// ---- nccl-tests: the cause in the evidence ----

TEST_CASE("nccl: a run that fails before its table names the CUDA failure, not the MPI boilerplate after it") {
  std::string text = Fixture("all_reduce_perf--2xH20-2nodes--cuda-system-not-initialized--1.txt");
  // The old evidence, the output's last lines, never reached the cause.
  bool tail_has_cause = false;
  for (const std::string& line : TailLines(text)) tail_has_cause |= Has(line, "Test CUDA failure");
  CHECK_FALSE(tail_has_cause);
  CheckResult r = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text, 1), 100, 100);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "no nccl-tests result rows (exit 1): gpu: Test CUDA failure common.cu:1030 'system not yet initialized'"));
  CHECK(EvidenceHas(r, "Test CUDA failure common.cu:1030"));
  CHECK(EvidenceHas(r, "Test failure common.cu:937"));  // the line after it, as context
  CHECK(EvidenceHas(r, "all_reduce_perf: exit 1"));

  std::string single = Fixture("all_reduce_perf--8xH100--cuda-system-not-initialized--1.txt");
  CheckResult s = EvaluateNccl("nccl.node", CheckScope::kNode, "n", Output(single, 2), 300, std::nullopt);
  CHECK(s.outcome == CheckOutcome::kFail);
  CHECK(Has(s.detail, "Test CUDA failure common.cu:941 'system not yet initialized'"));
}

TEST_CASE("CauseEvidence: many ranks printing one failure keep it once; no cause line keeps the tail") {
  std::string out;
  for (int rank = 0; rank < 8; ++rank) {
    out += "node1:" + std::to_string(1000 + rank) + ":" + std::to_string(1000 + rank) + " [" + std::to_string(rank) +
           "] NCCL WARN Cuda failure 'out of memory'\n";
  }
  out += "srun: error: node1: task 0: Exited with exit code 1\n";
  std::vector<std::string> evidence = CauseEvidence(out);
  int warns = 0;
  for (const std::string& line : evidence) warns += Has(line, "NCCL WARN") ? 1 : 0;
  CHECK(Has(evidence.front(), "NCCL WARN Cuda failure 'out of memory'"));
  CHECK(warns <= 4);  // the cause once with its context line, and the last lines
  CHECK(Has(evidence.back(), "Exited with exit code 1"));
  CHECK(CauseEvidence("a\nb\nc\n") == std::vector<std::string>{"a", "b", "c"});
  CHECK(FirstCause(out) == "node1:1000:1000 [0] NCCL WARN Cuda failure 'out of memory'");
}

// ---- every tool's exit status ----

TEST_CASE("nccl: a complete table from a run that exits non-zero, is killed, or fails after its table fails") {
  std::string text = Fixture("all_reduce_perf--16xH100-2nodes-GCP-A3Mega--1.txt");
  REQUIRE(EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text), 200, kTcpxoSmallMessageMaxUs).outcome ==
          CheckOutcome::kPass);
  CheckResult exit1 = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text, 1), 200, kTcpxoSmallMessageMaxUs);
  CHECK(exit1.outcome == CheckOutcome::kFail);
  CHECK(Has(exit1.detail, "all_reduce_perf exit 1 after printing its results"));
  CHECK(EvidenceHas(exit1, "all_reduce_perf: exit 1"));
  CheckResult killed = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text, -1, 11), 200, kTcpxoSmallMessageMaxUs);
  CHECK(killed.outcome == CheckOutcome::kFail);
  CHECK(Has(killed.detail, "killed by signal 11 (SIGSEGV)"));
  // Derived: the capture with a failure printed after its summary.
  std::string trailing = text + "a3mega-a3meganodeset-1: Test NCCL failure common.cu:1279 'unhandled system error'\n";
  CheckResult after = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(trailing), 200, kTcpxoSmallMessageMaxUs);
  CHECK(after.outcome == CheckOutcome::kFail);
  CHECK(Has(after.detail, "failure after the results: a3mega-a3meganodeset-1: Test NCCL failure"));
}

TEST_CASE("exit status: ib_write_bw results count only when the tool exited 0 (chronyc: clock_offset_test.cc)") {
  std::string bw = Fixture("ib_write_bw--HDR-loopback--1.txt");
  IbWriteBwLimits t;
  t.message_bytes = 8388608;
  REQUIRE(EvaluateIbWriteBw("a+b", Output(bw), 200, t).outcome == CheckOutcome::kPass);
  CheckResult failed = EvaluateIbWriteBw("a+b", Output(bw, 1), 200, t);
  CHECK(failed.outcome == CheckOutcome::kFail);
  CHECK(Has(failed.detail, "ib_write_bw exit 1 after printing its results"));
  CHECK(ExitDescription(Output("", -1, 9)) == "killed by signal 9 (SIGKILL)");
}

TEST_CASE("nccl: results from a run with validation off (-c 0, #wrong N/A) are not a pass") {
  std::string text = Fixture("all_reduce_perf--16xH100-2nodes--srun-label--1.txt");
  auto parsed = ParseNcclTests(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->rows.front().wrong == "N/A");
  CheckResult r = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text), 50, std::nullopt);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "results not checked for correctness"));
}

// ---- per-rank prefixes ----

TEST_CASE("nccl: srun --label and mpirun --tag-output lines parse like plain output") {
  std::string label = Fixture("all_reduce_perf--16xH100-2nodes--srun-label--1.txt");
  auto parsed = ParseNcclTests(label);
  REQUIRE(parsed.ok());
  CHECK(parsed->ranks == 16);
  CHECK(parsed->rows.front().bytes == 8388608);
  CHECK(parsed->out_of_bounds == 0);
  CHECK(parsed->average_busbw == doctest::Approx(142.735));

  std::string tagged = Fixture("all_gather_perf--16xH200-2nodes-GKE-A3U--mpirun-tag-output--1.txt");
  auto gather = ParseNcclTests(tagged);
  REQUIRE(gather.ok());
  CHECK(gather->ranks == 16);
  CHECK(gather->rows.front().bytes == 1024);
  CHECK(gather->out_of_bounds_ok);
  CHECK(gather->average_busbw == doctest::Approx(122.073));

  CHECK(StripRankPrefix("[1,0]<stdout>:#  Rank  0 Group") == "#  Rank  0 Group");
  CHECK(StripRankPrefix(" 12: # Avg bus bandwidth") == "# Avg bus bandwidth");
  CHECK(StripRankPrefix("(head, rank=0, pid=3808) [1,0]<stdout>:#") == "#");
  // A result row is not a label: its first number is followed by spaces, not ": ".
  CHECK(StripRankPrefix("           8             2     float") == "           8             2     float");
}

// ---- small-message latency: a band decides, not one row ----

TEST_CASE("nccl.cluster latency: a warm-up outlier in the 8 B row does not decide the verdict") {
  // AWS p5en: 8 B out-of-place 983.2 us (warm-up), in-place 166.1, 16 B 167.3/171.2.
  std::string text = Fixture("all_reduce_perf--H200-p5en--warmup-outlier-elided--1.txt");
  auto parsed = ParseNcclTests(text);
  REQUIRE(parsed.ok());
  auto band = SmallMessageBand(*parsed);
  REQUIRE(band.has_value());
  CHECK(band->median_us == doctest::Approx(166.7));
  CheckResult r = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text), 300, kTcpxoSmallMessageMaxUs);
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(Has(r.measured, "median 166.7 us over 2 sizes 8-16 B"));
  // The same band over a real 2-node p5 table (srun --label, no summary lines published).
  auto p5 = ParseNcclTests(Fixture("all_reduce_perf--16xH100-2nodes-p5--srun-label-table-only--1.txt"));
  CHECK_FALSE(p5.ok());  // no "Out of bounds values" line: the run's end was not published
  // A table that starts above 4 KiB has no latency reading: not a pass.
  std::string oci = Fixture("all_reduce_perf--16xH200-2nodes-OCI--1.txt");
  CheckResult no_band = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(oci), 300, 100);
  CHECK(no_band.outcome == CheckOutcome::kFail);
  CHECK(Has(no_band.detail, "no latency reading"));
  CHECK(EvaluateNccl("nccl.node", CheckScope::kNode, "n", Output(oci), 300, std::nullopt).outcome ==
        CheckOutcome::kPass);
}

// ---- bus-bandwidth floors by model ----

TEST_CASE("busbw floors: current parts, and names that share a prefix are told apart") {
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H100 80GB HBM3") == 300);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H200") == 300);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H20") == 300);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H20 NVL16") == 300);  // an NVLink board, not a PCIe NVL card
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H800") == 130);       // 8 NVLinks
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA A800-SXM4-80GB") == 120);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA A100-SXM4-80GB") == 180);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA PG509-210") == 180);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA B200") == 550);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA GB200") == 520);      // not B200's
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA GH200 480GB") == 200);  // not H200's
  CHECK(DefaultNodeBusbwFloorGbps("Tesla V100-SXM2-16GB") == 90);
  CHECK(DefaultNodeBusbwFloorGbps("Tesla V100-PCIE-16GB") == 6);  // upper-case PCIE
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA A100-PCIE-40GB") == 8);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H100 NVL") == 8);       // a PCIe card
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA H100 PCIe") == 8);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA L40S") == 8);
  CHECK(DefaultNodeBusbwFloorGbps("NVIDIA Graphics Device") == 8);
}

// ---- gpu.pcie ----

TEST_CASE("gpu.pcie: a GPU trained at x4 of x8 or x8 of x16 fails naming it; idle generation drops are not judged") {
  std::string two = Fixture("nvidia-smi-q--2xRTX-4060Ti--pcie-x4-of-x8--1.txt");
  auto report = ParseNvidiaSmiQuery(two);
  REQUIRE(report.ok());
  CheckResult r = EvaluateGpuPcie("ws", *report, PcieFloor{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "GPU 00000000:03:00.0: link width x4 of x8"));
  CHECK_FALSE(Has(r.detail, "GPU 00000000:04:00.0"));
  CHECK(r.measured == "1 GPU failing");

  std::string l4 = Fixture("nvidia-smi-q--L4--pcie-x8-of-x16--1.txt");
  auto l4_report = ParseNvidiaSmiQuery(l4);
  REQUIRE(l4_report.ok());
  CheckResult narrow = EvaluateGpuPcie("l4", *l4_report, PcieFloor{});
  CHECK(narrow.outcome == CheckOutcome::kFail);
  CHECK(Has(narrow.detail, "link width x8 of x16"));
  // A platform wired x8 on purpose says so; the L4's Gen1 of Gen4 at idle (P8) is power saving.
  PcieFloor x8;
  x8.width = 8;
  CheckResult wired = EvaluateGpuPcie("l4", *l4_report, x8);
  CHECK_MESSAGE(wired.outcome == CheckOutcome::kPass, wired.detail);
  CHECK(Has(wired.detail, "generation not judged on 1 idle GPU"));

  for (const char* healthy : {"nvidia-smi-q--8xH100-SXM5-80GB--1.txt", "nvidia-smi-q--H200-141GB--1.txt",
                              "nvidia-smi-q--8xV100-SXM2-16GB--1.txt"}) {
    CAPTURE(healthy);
    auto h = ParseNvidiaSmiQuery(Fixture(healthy));
    REQUIRE(h.ok());
    CheckResult pass = EvaluateGpuPcie("h", *h, PcieFloor{});
    CHECK_MESSAGE(pass.outcome == CheckOutcome::kPass, pass.detail);
  }
  // XML: the A10G capture is x8 of x16 too.
  auto a10g = ParseNvidiaSmiXml(Fixture("nvidia-smi-q-x--A10G--1.xml"));
  REQUIRE(a10g.ok());
  CHECK(Has(EvaluateGpuPcie("g5", *a10g, PcieFloor{}).detail, "link width x8 of x16"));
  // Derived: a width that cannot be read is unknown.
  std::string h100 = Fixture("nvidia-smi-q--H100-80GB-HBM3--1.txt");
  auto unreadable = ParseNvidiaSmiQuery(Edited(h100, "Link Width", "16x", "Unknown Error"));
  REQUIRE(unreadable.ok());
  CheckResult unknown = EvaluateGpuPcie("h", *unreadable, PcieFloor{});
  CHECK(unknown.outcome == CheckOutcome::kFail);
  CHECK(unknown.measured == "unknown");
}

// ---- gpu.clocks ----

TEST_CASE("gpu.clocks: HW Slowdown and HW Power Brake active on a V100 fail; a software power cap does not") {
  // A published 13-line excerpt (a Dell C4130's throttled V100), framed as one GPU's -q section.
  std::string excerpt = Fixture("nvidia-smi-q-excerpt--V100-SXM2-32GB-C4130--hw-power-brake--1.txt");
  auto report = ParseNvidiaSmiQuery(AsQueryDocument(excerpt, 4));
  REQUIRE(report.ok());
  CheckResult r = EvaluateGpuClocks("c4130", *report);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(r, "HW Slowdown                       : Active"));
  CHECK(EvidenceHas(r, "HW Power Brake Slowdown       : Active"));

  std::string a6000 = Fixture("nvidia-smi-q--9xRTX-A6000--sw-power-cap--1.txt");
  auto nine = ParseNvidiaSmiQuery(a6000);
  REQUIRE(nine.ok());
  REQUIRE(nine->gpus.size() == 9);
  CheckResult capped = EvaluateGpuClocks("ws", *nine);
  CHECK_MESSAGE(capped.outcome == CheckOutcome::kPass, capped.detail);
  for (const char* healthy : {"nvidia-smi-q--H100-80GB-HBM3--1.txt", "nvidia-smi-q--H200-141GB--1.txt",
                              "nvidia-smi-q--L40S--1.txt", "nvidia-smi-q--8xV100-SXM2-16GB--1.txt"}) {
    CAPTURE(healthy);
    CheckResult pass = EvaluateGpuClocks("h", *ParseNvidiaSmiQuery(Fixture(healthy)));
    CHECK_MESSAGE(pass.outcome == CheckOutcome::kPass, pass.detail);
  }
  // Found by this check: the 8xH100 HGX capture, taken as a healthy node,
  // has the power brake asserted on all eight GPUs (SM clock 86 MHz at P0).
  CheckResult hgx = EvaluateGpuClocks("h", *ParseNvidiaSmiQuery(Fixture("nvidia-smi-q--8xH100-SXM5-80GB--1.txt")));
  CHECK(hgx.outcome == CheckOutcome::kFail);
  CHECK(hgx.measured == "8 GPUs failing");
  CHECK(Has(hgx.detail, "GPU 00000000:19:00.0: HW Slowdown"));
  // Derived: the section missing is no reading.
  std::string h100 = Fixture("nvidia-smi-q--H100-80GB-HBM3--1.txt");
  auto none = ParseNvidiaSmiQuery(Edited(h100, "Performance State", "Clocks Event Reasons\n", "Clocks Something Else\n"));
  REQUIRE(none.ok());
  CheckResult unknown = EvaluateGpuClocks("h", *none);
  CHECK(unknown.outcome == CheckOutcome::kFail);
  CHECK(unknown.measured == "unknown");
}

// ---- gpu.nvlink ----

TEST_CASE("gpu.nvlink: 8xA100 with 12 links each passes; one link down fails; a bridged H100 PCIe pair's unwired links do not") {
  std::string a100 = Fixture("nvidia-smi-nvlink-status--8xA100-SXM4-80GB--1.txt");
  NvidiaSmiReport no_fabric;
  CheckResult r = EvaluateGpuNvlink("dgx", Output(a100), no_fabric, 6, NvlinkExpectation{});
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured == "96/96 links up");
  // Derived: GPU 1's link 5 inactive.
  std::string down = Edited(a100, "GPU 1:", "Link 5: 25 GB/s", "Link 5: <inactive>");
  CheckResult failed = EvaluateGpuNvlink("dgx", Output(down), no_fabric, 6, NvlinkExpectation{});
  CHECK(failed.outcome == CheckOutcome::kFail);
  CHECK(Has(failed.detail, "GPU 1: 11 of 12 links up (inactive: 5)"));
  CHECK(EvidenceHas(failed, "Link 5: <inactive>"));

  std::string pcie = Fixture("nvidia-smi-nvlink-s--2xH100-PCIe-NVLink-bridge--6-inactive--1.txt");
  CheckResult bridged = EvaluateGpuNvlink("dl380a", Output(pcie), no_fabric, 0, NvlinkExpectation{});
  CHECK_MESSAGE(bridged.outcome == CheckOutcome::kPass, bridged.detail);
  CHECK(Has(bridged.detail, "2 GPUs x 12 links (6 more listed per GPU, inactive: not wired)"));
  NvlinkExpectation eighteen;
  eighteen.links = 18;
  CHECK(EvaluateGpuNvlink("dl380a", Output(pcie), no_fabric, 0, eighteen).outcome == CheckOutcome::kFail);
  CHECK(EvaluateGpuNvlink("pcie", Output("GPU 0: NVIDIA L40S (UUID: GPU-1)\n"), no_fabric, 0, NvlinkExpectation{}).outcome ==
        CheckOutcome::kSkip);
}

TEST_CASE("gpu.nvlink: the fabric state of NVSwitch systems: Completed/Success passes, anything else fails") {
  std::string links = Fixture("nvidia-smi-nvlink-status--8xA100-SXM4-80GB--1.txt");
  auto hgx = ParseNvidiaSmiQuery(Fixture("nvidia-smi-q--8xH100-SXM5-80GB--1.txt"));
  REQUIRE(hgx.ok());
  CHECK(hgx->gpus[0].fabric_state == "Completed");
  CHECK(EvaluateGpuNvlink("hgx", Output(links), *hgx, 4, NvlinkExpectation{}).outcome == CheckOutcome::kPass);
  auto insufficient = ParseNvidiaSmiQuery(
      AsQueryDocument(Fixture("nvidia-smi-q-excerpt--MNNVL-Azure--fabric-insufficient-resources--1.txt"), 4));
  REQUIRE(insufficient.ok());
  CheckResult r = EvaluateGpuNvlink("gb200", Output(links), *insufficient, 0, NvlinkExpectation{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "fabric State Completed, Status Insufficient Resources"));
  auto unhealthy = ParseNvidiaSmiQuery(
      AsQueryDocument(Fixture("nvidia-smi-q-grep-fabric--MNNVL--health-unhealthy--1.txt"), 0));
  REQUIRE(unhealthy.ok());
  CHECK(unhealthy->gpus[0].fabric_health == "Unhealthy");
  CHECK(Has(EvaluateGpuNvlink("gb200", Output(links), *unhealthy, 0, NvlinkExpectation{}).detail, "Health Unhealthy"));
}

// ---- gpu.dcgm ----

TEST_CASE("gpu.dcgm: dcgmi diag passes only when every test passes or skips; failures carry their detail rows") {
  for (const char* pass : {"dcgmi-diag-r1--1xGPU-AWS--pass-blacklist--1.txt", "dcgmi-diag-r2--8xA100-SXM4-80GB-p4de--pass--1.txt"}) {
    CAPTURE(pass);
    CheckResult r = EvaluateDcgmDiag("n", Output(Fixture(pass)));
    CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  }
  auto tests = ParseDcgmDiag(Fixture("dcgmi-diag-r2--8xA100-SXM4-80GB-p4de--pass--1.txt"));
  REQUIRE(tests.ok());
  CHECK(std::none_of(tests->begin(), tests->end(), [](const DcgmTest& t) { return t.name == "DCGM Version"; }));

  CheckResult persistence =
      EvaluateDcgmDiag("h200", Output(Fixture("dcgmi-diag-r1--8xH200--fail-persistence-mode--1.txt"), 226));
  CHECK(persistence.outcome == CheckOutcome::kFail);
  CHECK(Has(persistence.detail, "Persistence Mode: Fail"));
  CHECK(EvidenceHas(persistence, "| Error                     | Persistence mode for GPU 0 is currently disab"));

  CheckResult memory = EvaluateDcgmDiag("h100", Output(Fixture("dcgmi-diag-r3--8xH100--fail-gpu-memory-cuinit--1.txt")));
  CHECK(memory.outcome == CheckOutcome::kFail);
  CHECK(Has(memory.detail, "GPU Memory: Fail"));
  CHECK(EvidenceHas(memory, "GPU 0 Error using CUDA API cuInit"));
  CHECK_FALSE(Has(memory.detail, "Persistence Mode"));  // an Info row is not a failure

  CheckResult no_engine = EvaluateDcgmDiag("n", Output("Error: unable to establish a connection to the specified host: localhost\n", 255));
  CHECK(no_engine.outcome == CheckOutcome::kFail);
  CHECK(no_engine.measured == "unknown");
  CHECK(Has(no_engine.detail, "unable to establish a connection"));
}

// ---- the other new captures parse to what they show ----

TEST_CASE("B200 all_gather tables over 2 nodes: ranks, zero-size rows kept out of the latency band") {
  auto a4 = ParseNcclTests(Fixture("all_gather_perf--16xB200-2nodes-GKE-A4--1.txt"));
  REQUIRE(a4.ok());
  CHECK(a4->ranks == 16);
  CHECK(a4->out_of_bounds_ok);
  CHECK(a4->average_busbw == doctest::Approx(59.3638));
  auto pair = ParseNcclTests(Fixture("all_gather_perf--2xB200-2nodes-1GPUeach--zero-size-rows--1.txt"));
  REQUIRE(pair.ok());
  CHECK(pair->ranks == 2);
  CHECK(pair->rows.front().bytes == 0);
  auto band = SmallMessageBand(*pair);
  REQUIRE(band.has_value());
  CHECK(band->smallest >= kSmallMessageMin);  // a 0-byte row measures no transfer
}

TEST_CASE("dcgmi diag in the old layout (Blacklist, no Metadata) with several failures names each") {
  CheckResult r = EvaluateDcgmDiag("n", Output(Fixture("dcgmi-diag-r1--deepops-doc--fail-deployment--1.txt")));
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "Persistence Mode: Fail; Environment Variables: Fail; Page Retirement: Fail"));
  CHECK(Has(r.measured, "4/9 pass"));
}

}  // namespace clusterctl
