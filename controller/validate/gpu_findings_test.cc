// Issue 30, items 4-7: what a GPU node's tools print that a validator must
// not miss, on real captures from tests/fixtures/captured (SOURCES.md says
// where each came from). Where no public capture shows a case, the test
// derives it from a real capture by one named edit, said in the test.
//   4. gpu.xid reads every NVRM line: a GPU lost without an Xid line fails,
//      and each Xid code is shown with its count and first line.
//   5. ib_write_bw's result rows are found by their shape, wherever perftest
//      put its warnings.
//   6. gpu.ecc reports every finding of a GPU, not only "ECC is disabled".
//   7. gpu.nvlink expects an SXM part's own link count, and says where its
//      expected count came from.
#include <doctest/doctest.h>

#include <string>

#include "controller/validate/check_test_util.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/nvrm_log.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

using testing::EvidenceHas;
using testing::Output;

std::string Fixture(const std::string& name) { return testing::CapturedFixture(name); }

bool Has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// journalctl -k -b 0 -n 1 on a node whose kernel log has lines.
const ToolOutput kSample = Output("2026-11-25T10:00:00.000000+0000 node01 kernel: Linux version 6.8.0\n");

// Replaces every occurrence of `from` (a real capture, edited once: the same edit wherever it applies).
std::string EditedEverywhere(std::string text, const std::string& from, const std::string& to) {
  size_t count = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++count;
  }
  REQUIRE(count > 0);
  return text;
}

}  // namespace

// ---- 4. gpu.xid: every NVRM line ----

TEST_CASE("gpu.xid: an H100 that fell off the bus at probe time, with no Xid line at all, fails") {
  std::string text = Fixture("dmesg--H100-SXM5--probe-fallen-off-bus-no-xid--1.txt");
  NvrmLog log = ReadNvrmLog(text);
  CHECK(log.xids.empty());  // what `--grep "NVRM: Xid"` saw: nothing, so gpu.xid passed
  REQUIRE(log.fatal.size() == 2);
  CHECK(log.fatal[0].what == "GPU has fallen off the bus");
  // The driver printed the message over three lines: the evidence joins them, so it names the GPU.
  CHECK(Has(log.fatal[0].first, "The NVIDIA GPU 0000:5d:00.0"));
  CHECK(Has(log.fatal[0].first, "fallen off the bus and is not responding to commands."));
  CHECK(log.fatal[1].what == "the driver's probe failed for a GPU");
  CheckResult r = EvaluateXid("n", Output(text), kSample, std::set<int>{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "GPU has fallen off the bus x1"));
  CHECK(EvidenceHas(r, "(PCI ID: 10de:2330)"));
  CHECK(r.measured == "2");
}

TEST_CASE("gpu.xid: Xid 79 on an H100 fails, and ignoring Xid 79 does not hide the fallen-off-the-bus line") {
  std::string text = Fixture("dmesg--H100-SXM5--xid79-fallen-off-bus--1.txt");
  CheckResult r = EvaluateXid("n", Output(text), kSample, std::set<int>{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(r, "Xid 79 x1, first: [ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79"));
  // The Xid line itself is counted once, as an Xid; the driver's own line beside it as the fatal message.
  CHECK(EvidenceHas(r, "GPU has fallen off the bus x1, first: [ 4254.197871] NVRM: GPU 0000:5d:00.0"));
  std::set<int> ignore = {79};
  CheckResult ignored = EvaluateXid("n", Output(text), kSample, ignore);
  CHECK(ignored.outcome == CheckOutcome::kFail);
  CHECK(Has(ignored.detail, "ignored (validate_gpu_xid_ignore): Xid 79 x1"));
  CHECK_FALSE(EvidenceHas(ignored, "Xid 79"));
}

TEST_CASE("gpu.xid: RmInitAdapter failed (a Titan V) and a GPU that needs a reset (GB200) fail without an Xid") {
  CheckResult adapter = EvaluateXid("n", Output(Fixture("dmesg-T-excerpt--TITAN-V--rminitadapter-failed--1.txt")),
                                    kSample, std::set<int>{});
  CHECK(adapter.outcome == CheckOutcome::kFail);
  CHECK(Has(adapter.detail, "RmInitAdapter failed (the driver cannot initialise the GPU) x4"));
  CHECK(EvidenceHas(adapter, "NVRM: GPU 0000:81:00.0: RmInitAdapter failed! (0x25:0x40:1470)"));
  CheckResult reset = EvaluateXid("n", Output(Fixture("dmesg--GB200--reset-required--1.txt")), kSample, std::set<int>{});
  CHECK(reset.outcome == CheckOutcome::kFail);
  CHECK(Has(reset.detail, "the GPU requires a reset x1"));
}

TEST_CASE("gpu.xid: a healthy H100's benign NVRM lines (FBHUB interrupt cleared, persistence notice) pass") {
  std::string text = Fixture("dmesg-nvrm--H100-80GB-HBM3--driver580-1GPU-VM--1.txt");
  NvrmLog log = ReadNvrmLog(text);
  CHECK(log.nvrm_lines == 3);
  CHECK(log.xids.empty());
  CHECK(log.fatal.empty());
  CheckResult r = EvaluateXid("vm", Output(text), kSample, std::set<int>{});
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(Has(r.detail, "3 NVRM lines read"));

  // The same log cut at the agent's output limit: an Xid after the cut cannot be ruled out.
  ToolOutput cut = Output(text);
  cut.truncated = true;
  CheckResult unread = EvaluateXid("vm", cut, kSample, std::set<int>{});
  CHECK(unread.outcome == CheckOutcome::kFail);
  CHECK(Has(unread.detail, "no reading: the driver's log since boot was cut at the agent's output limit"));
}

TEST_CASE("gpu.xid: each Xid code with its count and first line, however many lines follow it") {
  std::string text = Fixture("dmesg-T-grep-NVRM--535.183.01--xid-43-31-94--1.txt");
  CheckResult r = EvaluateXid("n", Output(text), kSample, std::set<int>{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "Xid 43 x2, Xid 31 x1, Xid 94 x1"));
  CHECK(r.evidence.size() == 3);
  // Derived by one named edit: the capture's last line (Xid 94) repeated until it appears 300 times.
  // The last 12 lines are all Xid 94 now; the first Xid 43 and the Xid 31 stay in the evidence.
  std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  std::string flooded = text;
  for (int i = 1; i < 300; ++i) flooded += last;
  CheckResult many = EvaluateXid("n", Output(flooded), kSample, std::set<int>{});
  CHECK(many.outcome == CheckOutcome::kFail);
  CHECK(many.measured == "303");
  CHECK(EvidenceHas(many, "Xid 43 x2, first: [Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43"));
  CHECK(EvidenceHas(many, "Xid 31 x1, first: [Mon Aug  5 03:54:13 2024]"));
  CHECK(EvidenceHas(many, "Xid 94 x300, first: [Fri Aug  9 13:32:56 2024]"));
  // The application faults a site ignores stay named in the detail, not counted.
  std::set<int> apps = {31, 43};
  CheckResult contained = EvaluateXid("n", Output(flooded), kSample, apps);
  CHECK(contained.outcome == CheckOutcome::kFail);
  CHECK(contained.measured == "300");
  CHECK(Has(contained.detail, "ignored (validate_gpu_xid_ignore): Xid 43 x2, Xid 31 x1"));
}

TEST_CASE("gpu.xid: the NVRM reader takes any bytes without a crash and reads no Xid from a broken line") {
  std::string broken = "NVRM: Xid (PCI:0000:3b:00): 12345678901234567890, GPU has fallen off\n";
  broken += "NVRM: Xid (" + std::string(1 << 20, '(') + "\n";
  broken += std::string(1 << 16, ' ') + "NVRM: fallen off the bus\n";  // a continuation line with no message before it
  const char binary[] = "\0\xff\r\n\tNVRM: Xid (PCI:0): 7\n";
  broken += std::string(binary, sizeof binary - 1);
  NvrmLog log = ReadNvrmLog(broken);
  REQUIRE(log.xids.size() == 1);  // only "(PCI:0): 7"; the 20-digit code is no Xid line
  CHECK(log.xids[0].code == 7);
  CHECK(log.fatal.size() == 1);
  CHECK(EvaluateXid("n", Output(broken), kSample, std::set<int>{}).outcome == CheckOutcome::kFail);
  // A thousand distinct codes: 16 named, the rest counted.
  std::string codes;
  for (int code = 1; code <= 1000; ++code) codes += "NVRM: Xid (PCI:0000:3b:00): " + std::to_string(code) + ", x\n";
  CheckResult flood = EvaluateXid("n", Output(codes), kSample, std::set<int>{});
  CHECK(flood.evidence.size() == 16);
  CHECK(Has(flood.detail, "Xid 16 x1, 984 more since boot"));
  CHECK(flood.measured == "1000");
}

TEST_CASE("gpu.xid: an ignored Xid 45 that the driver says NVLink Xid 149 and 145 caused is judged by its cause") {
  // Real: seven lines of a GB-class node's kernel log, driver 590.48.01 (SOURCES.md).
  std::string text = Fixture("kernel-log-NVRM--590.48.01--xid45-caused-by-previous-xid-149-145--1.txt");
  NvrmLog log = ReadNvrmLog(text);
  REQUIRE(log.xids.size() == 1);
  CHECK(log.xids[0].code == 45);
  CHECK(log.xids[0].lines == 7);
  REQUIRE(log.xids[0].causes.size() == 2);
  CHECK(log.xids[0].causes[0].code == 149);
  CHECK(log.xids[0].causes[0].lines == 2);
  CHECK(Has(log.xids[0].causes[0].first, "PCI:0000:dc:00"));
  CHECK(log.xids[0].causes[1].code == 145);
  CHECK(log.xids[0].causes[1].lines == 5);
  // Ignoring 45 (application teardown) used to pass this log: the NVLink Xids behind it now fail it.
  CheckResult r = EvaluateXid("n", Output(text), kSample, std::set<int>{45});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK_MESSAGE(Has(r.detail, "Xid 149 (named as the cause of Xid 45) x2"), r.detail);
  CHECK(Has(r.detail, "Xid 145 (named as the cause of Xid 45) x5"));
  CHECK(Has(r.detail, "ignored (validate_gpu_xid_ignore): Xid 45 x7"));
  CHECK(EvidenceHas(r, "caused by previous Xid 149"));
  CHECK(r.measured == "7");
  // A site that ignores the causes too is told nothing; one that ignores nothing sees Xid 45 itself.
  CHECK(EvaluateXid("n", Output(text), kSample, std::set<int>{45, 145, 149}).outcome == CheckOutcome::kPass);
  CheckResult plain = EvaluateXid("n", Output(text), kSample, std::set<int>{});
  CHECK(plain.outcome == CheckOutcome::kFail);
  CHECK(Has(plain.detail, "Xid 45 x7"));
  CHECK_FALSE(Has(plain.detail, "named as the cause"));
}

// ---- 5. ib_write_bw: rows by their shape ----

TEST_CASE("ib_write_bw: perftest's CPU-frequency warning between the header and the rows does not hide them") {
  // Derived by one named edit: perftest's warning, worded as in the public captures cited in
  // SOURCES.md, inserted after each table header of the HDR loopback capture, where perftest prints it.
  std::string text = EditedEverywhere(
      Fixture("ib_write_bw--HDR-loopback--1.txt"), "MsgRate[Mpps]\n",
      "MsgRate[Mpps]\nConflicting CPU frequency values detected: 1200.000000 != 2400.000000. CPU Frequency is not max.\n");
  auto rows = ParseIbWriteBw(text);
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 2);  // the table used to end at the warning: no rows, "no ib_write_bw result rows"
  CHECK((*rows)[1].bytes == 8388608);
  CHECK((*rows)[1].average_mbps == doctest::Approx(24056.72));
  IbWriteBwLimits t;
  t.message_bytes = 8388608;
  CheckResult r = EvaluateIbWriteBw("a+b", Output(text), 200, t);
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
}

TEST_CASE("ib_write_bw: MiB/sec tables are converted to MB/s; lines of other shapes are not rows") {
  // Derived by one named edit: the header's unit MB/sec printed as MiB/sec (newer perftest).
  std::string mib = EditedEverywhere(Fixture("ib_write_bw--HDR-loopback--1.txt"), "[MB/sec]", "[MiB/sec]");
  auto rows = ParseIbWriteBw(mib);
  REQUIRE(rows.ok());
  CHECK((*rows)[0].average_mbps == doctest::Approx(24056.72 * 1.048576));
  std::string header = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";
  for (const std::string& line : {std::string(" 65536      1000  1.2.3  4.0\n"), std::string(" -65536 1000 1.0 2.0\n"),
                                  std::string(" 65536 1000 1.0 2.0 3.0 4.0\n"), std::string(1 << 20, '\t') + "\n",
                                  std::string("65536 1000\n"), std::string("\xff 1 2 3\n")}) {
    CHECK_FALSE(ParseIbWriteBw(header + line).ok());
  }
  CHECK_FALSE(ParseIbWriteBw(" 65536      5000   9000.0   9000.0   0.1\n").ok());  // a row before any header: no unit
}

TEST_CASE("ib_write_bw: a --cpu_util row (six columns, -D --report_gbits) is read by its header's columns") {
  // Real: ib_write_bw -D 10 --cpu_util --report_gbits between two GB10s' ConnectX-7 (100GbE RoCE).
  std::string text = Fixture("ib_write_bw--GB10-CX7-RoCE--cpu_util-report_gbits-D10--1.txt");
  auto rows = ParseIbWriteBw(text);
  REQUIRE_MESSAGE(rows.ok(), rows.status().message());  // was: "no ib_write_bw result rows"
  REQUIRE(rows->size() == 1);
  CHECK((*rows)[0].bytes == 65536);
  CHECK((*rows)[0].iterations == 1059332);
  CHECK((*rows)[0].average_mbps == doctest::Approx(92.57 * 125));  // Gb/s -> MB/s; not the CPU_Util 5.07
  CHECK((*rows)[0].peak_mbps == doctest::Approx(0.0));             // -D prints no peak
  CheckResult pass = EvaluateIbWriteBw("a+b", Output(text), 100, IbWriteBwLimits{});
  CHECK_MESSAGE(pass.outcome == CheckOutcome::kPass, pass.detail);
  IbWriteBwLimits high;
  high.min_mbps = 12000;
  CHECK(EvaluateIbWriteBw("a+b", Output(text), 100, high).outcome == CheckOutcome::kFail);
}

TEST_CASE("ib_write_bw: an HDR run with CPU utilisation has result rows") {
  // Derived by one named edit: the HDR loopback capture's tables given --cpu_util's column
  // (header and rows), worded and spaced as in the GB10 capture above.
  std::string text = EditedEverywhere(
      EditedEverywhere(Fixture("ib_write_bw--HDR-loopback--1.txt"), "MsgRate[Mpps]\n", "MsgRate[Mpps]    CPU_Util[%]\n"),
      "0.003007\n", "0.003007         5.07\n");
  auto rows = ParseIbWriteBw(text);
  REQUIRE_MESSAGE(rows.ok(), rows.status().message());
  REQUIRE(rows->size() == 2);
  CHECK((*rows)[0].average_mbps == doctest::Approx(24056.72));
  IbWriteBwLimits t;
  t.message_bytes = 8388608;
  CheckResult r = EvaluateIbWriteBw("a+b", Output(text), 200, t);
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  // A row with a column fewer or more than its header is no row.
  std::string header = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]    CPU_Util[%]\n";
  CHECK_FALSE(ParseIbWriteBw(header + " 65536      1059332          0.00               92.57              0.176557\n").ok());
  CHECK_FALSE(ParseIbWriteBw(header + " 65536 1059332 0.00 92.57 0.176557 5.07 1.0\n").ok());
  CHECK_FALSE(ParseIbWriteBw(header + " 65536 1059332 0.00 92.57 0.176557 N/A\n").ok());
}

// ---- 6. gpu.ecc: every finding ----

TEST_CASE("gpu.ecc: ECC disabled does not hide an aggregate uncorrectable error on the same GPU") {
  // Derived by one named edit: the GH200's ECC Mode Current Enabled -> Disabled.
  std::string text = Fixture("nvidia-smi-q--GH200-480GB--ecc-dram-uncorrectable--1.txt");
  size_t mode = text.find("Enabled", text.find("ECC Mode"));
  REQUIRE(mode != std::string::npos);
  text.replace(mode, 7, "Disabled");
  CheckResult r = testing::EccResult(text, EccPolicy{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "ECC is disabled (ECC Mode: Disabled)"));
  CHECK(Has(r.detail, "1 aggregate uncorrectable ECC errors"));
  // A site that does not require ECC still hears of the error: a failure, not a skip.
  EccPolicy optional;
  optional.required = false;
  CheckResult lenient = testing::EccResult(text, optional);
  CHECK(lenient.outcome == CheckOutcome::kFail);
  CHECK_FALSE(Has(lenient.detail, "ECC is disabled"));
  CHECK(Has(lenient.detail, "1 aggregate uncorrectable ECC errors"));
}

// ---- 7. gpu.nvlink: the model's link count ----

TEST_CASE("gpu.nvlink: SXM parts have a fixed link count; PCIe and NVL cards do not (names from real captures)") {
  auto h100 = ParseNvidiaSmiQuery(Fixture("nvidia-smi-q--8xH100-SXM5-80GB--1.txt"));
  auto h200 = ParseNvidiaSmiQuery(Fixture("nvidia-smi-q--H200-141GB--1.txt"));
  auto v100 = ParseNvidiaSmiQuery(Fixture("nvidia-smi-q--8xV100-SXM2-16GB--1.txt"));
  REQUIRE((h100.ok() && h200.ok() && v100.ok()));
  CHECK(FixedNvlinksPerGpu(h100->gpus[0].name) == 18);
  CHECK(FixedNvlinksPerGpu(h200->gpus[0].name) == 18);
  CHECK(FixedNvlinksPerGpu(v100->gpus[0].name) == 6);
  auto a100 = ParseNvlinkStatus(Fixture("nvidia-smi-nvlink-status--8xA100-SXM4-80GB--1.txt"));
  auto pcie = ParseNvlinkStatus(Fixture("nvidia-smi-nvlink-s--2xH100-PCIe-NVLink-bridge--6-inactive--1.txt"));
  REQUIRE((a100.ok() && pcie.ok()));
  CHECK(FixedNvlinksPerGpu((*a100)[0].name) == 12);
  CHECK_FALSE(FixedNvlinksPerGpu((*pcie)[0].name).has_value());
  CHECK_FALSE(FixedNvlinksPerGpu("NVIDIA H100 NVL").has_value());
  CHECK_FALSE(FixedNvlinksPerGpu("NVIDIA GH200 480GB").has_value());
}

TEST_CASE("gpu.nvlink: 8 A100 SXM4 that all lost the same link fail against the model's 12, not the node's 11") {
  // Derived by one named edit: Link 11 of every GPU <inactive> (25 GB/s before).
  std::string text = EditedEverywhere(Fixture("nvidia-smi-nvlink-status--8xA100-SXM4-80GB--1.txt"),
                                      "Link 11: 25 GB/s", "Link 11: <inactive>");
  CheckResult r = EvaluateGpuNvlink("dgx", Output(text), NvidiaSmiReport{}, 0, NvlinkExpectation{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.measured == "88/96 links up");
  CHECK(Has(r.threshold, "12 links per GPU (NVIDIA A100-SXM4-80GB's NVLink count)"));
  CHECK(Has(r.detail, "GPU 0: 11 of 12 links up (inactive: 11)"));
  // The inventory's count is taken over the model's, and the threshold says so.
  NvlinkExpectation eleven;
  eleven.links = 11;
  CheckResult declared = EvaluateGpuNvlink("dgx", Output(text), NvidiaSmiReport{}, 0, eleven);
  CHECK_MESSAGE(declared.outcome == CheckOutcome::kPass, declared.detail);
  CHECK(Has(declared.threshold, "11 links per GPU (validate_gpu_nvlinks)"));
}

TEST_CASE("gpu.nvlink: a PCIe H100 pair with 12 of 18 links bridged passes on the node's own count, and says so") {
  std::string text = Fixture("nvidia-smi-nvlink-s--2xH100-PCIe-NVLink-bridge--6-inactive--1.txt");
  CheckResult r = EvaluateGpuNvlink("dl380a", Output(text), NvidiaSmiReport{}, 0, NvlinkExpectation{});
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(Has(r.threshold, "12 links per GPU (the most any GPU of the node has up)"));
  // The one-GPU H100 SXM5 VM whose nvidia-smi nvlink -s printed nothing: still no pass.
  auto vm = ParseNvidiaSmiQuery(Fixture("nvidia-smi-q--H100-80GB-HBM3--driver580-1GPU-VM--1.txt"));
  REQUIRE(vm.ok());
  CheckResult empty = EvaluateGpuNvlink(
      "vm", Output(Fixture("nvidia-smi-nvlink-s--H100-80GB-HBM3--1GPU-VM-empty--1.txt")), *vm, 0, NvlinkExpectation{});
  CHECK(empty.outcome == CheckOutcome::kFail);
  CHECK(empty.measured == "unknown");
}

TEST_CASE("gpu.nvlink: a capture elided before its first GPU is read; the V100 with 2 of 6 links inactive fails (issue 51)") {
  // Azure/azhpc-diagnostics#73 as posted: "...." where the other GPUs were left out.
  std::string text = Fixture("nvidia-smi-nvlink-s--V100-SXM2-32GB--elided-2-inactive--1.txt");
  auto gpus = ParseNvlinkStatus(text);
  REQUIRE_MESSAGE(gpus.ok(), gpus.status().message());  // main read the elision as "not nvidia-smi nvlink -s output"
  REQUIRE(gpus->size() == 1);
  CHECK((*gpus)[0].index == 3);
  REQUIRE((*gpus)[0].links.size() == 6);
  CHECK((*gpus)[0].links[3].inactive);
  CHECK((*gpus)[0].links[5].inactive);
  CheckResult r = EvaluateGpuNvlink("v100", Output(text), NvidiaSmiReport{}, 0, NvlinkExpectation{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "GPU 3: 4 of 6 links up (inactive: 3, 5)"));
  // Text before the first GPU that is not an elision is still no nvlink output.
  CHECK_FALSE(ParseNvlinkStatus("NVML: Unknown Error\n" + text.substr(text.find("GPU 3"))).ok());
}

}  // namespace clusterctl
