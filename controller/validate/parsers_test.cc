// Every captured tool output in tests/fixtures/captured through the parsers
// and the checks: the healthy captures pass, each failing capture fails the
// check it belongs to with the lines that show why, and every parser refuses
// the outputs that are not its own (a parser never passes by default).
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <map>

#include "agent/facts/nvidia_mig.h"
#include "common/strings.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/dcgm_diag.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/nccl_tests.h"
#include "controller/validate/nvidia_smi.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/system_tools.h"
#include "controller/validate/check_test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

// A GPUDirect-TCPX(O) fabric's small-message latency ceiling (validate_nccl_small_message_max_us: 200).
constexpr double kTcpxoSmallMessageMaxUs = 200;

std::string Fixture(const std::string& name) { return testing::CapturedFixture(name); }

using testing::EvidenceHas;
using testing::Output;

const CheckResult& Named(const std::vector<CheckResult>& results, const std::string& check) {
  for (const CheckResult& r : results) {
    if (r.check == check) return r;
  }
  FAIL("no result for " << check);
  return results.front();
}

}  // namespace

// ---- nvidia-smi ----

TEST_CASE("nvidia-smi -q: healthy H100, H200, L40S and 8xH100 pass count, persistence and ECC") {
  for (auto [file, gpus] : std::vector<std::pair<std::string, int>>{{"nvidia-smi-q--8xH100-SXM5-80GB--1.txt", 8},
                                                                     {"nvidia-smi-q--H100-80GB-HBM3--1.txt", 1},
                                                                     {"nvidia-smi-q--H200-141GB--1.txt", 1},
                                                                     {"nvidia-smi-q--L40S--1.txt", 1}}) {
    CAPTURE(file);
    std::string text = Fixture(file);
    auto report = ParseNvidiaSmiQuery(text);
    REQUIRE(report.ok());
    CHECK(report->gpus.size() == static_cast<size_t>(gpus));
    CHECK_FALSE(report->driver_version.empty());
    CHECK(report->gpus[0].volatile_uncorrectable.has_value());
    auto results = EvaluateGpuHealth("gpu01", report, text, gpus, EccPolicy{});
    CHECK(Named(results, "gpu.count").outcome == CheckOutcome::kPass);
    CHECK(Named(results, "gpu.ecc").outcome == CheckOutcome::kPass);
    // The same capture with one GPU fewer than PCI found fails the count.
    CHECK(Named(EvaluateGpuHealth("gpu01", report, text, gpus + 1, EccPolicy{}), "gpu.count").outcome == CheckOutcome::kFail);
  }
}

TEST_CASE("nvidia-smi -q: an 8xV100 with one retired single-bit page passes ECC and says so") {
  std::string text = Fixture("nvidia-smi-q--8xV100-SXM2-16GB--1.txt");
  auto report = ParseNvidiaSmiQuery(text);
  REQUIRE(report.ok());
  REQUIRE(report->gpus.size() == 8);
  long long retired = 0;
  for (const GpuStatus& g : report->gpus) {
    retired += g.retired_pages.value_or(0);
    CHECK(g.volatile_uncorrectable == 0);  // Double Bit / Total
    CHECK(g.retirement_pending == false);
  }
  CHECK(retired == 1);
  auto ecc = Named(EvaluateGpuHealth("v100", report, text, 8, EccPolicy{}), "gpu.ecc");
  CHECK(ecc.outcome == CheckOutcome::kPass);
  CHECK(ecc.detail.find("1 retired page") != std::string::npos);
}

TEST_CASE("nvidia-smi -q: GH200 with an aggregate DRAM uncorrectable error fails ECC with the counter line") {
  std::string text = Fixture("nvidia-smi-q--GH200-480GB--ecc-dram-uncorrectable--1.txt");
  auto report = ParseNvidiaSmiQuery(text);
  REQUIRE(report.ok());
  REQUIRE(report->gpus.size() == 1);
  CHECK(report->gpus[0].volatile_uncorrectable == 0);
  CHECK(report->gpus[0].aggregate_uncorrectable == 1);
  CHECK(report->gpus[0].remapped_uncorrectable == 1);
  CHECK(report->gpus[0].remap_pending == false);
  auto ecc = Named(EvaluateGpuHealth("gh01", report, text, 1, EccPolicy{}), "gpu.ecc");
  CHECK(ecc.outcome == CheckOutcome::kFail);
  CHECK(ecc.detail.find("1 aggregate uncorrectable") != std::string::npos);
  CHECK(EvidenceHas(ecc, "DRAM Uncorrectable            : 1"));
  // An admin who accepts one lifetime error raises the limit.
  EccPolicy lenient;
  lenient.aggregate_uncorrectable_max = 1;
  CHECK(Named(EvaluateGpuHealth("gh01", report, text, 1, lenient), "gpu.ecc").outcome == CheckOutcome::kPass);
}

TEST_CASE("nvidia-smi -q -x: A100 MIG and A10G parse; A10G with persistence off fails persistence only") {
  for (auto file : {"nvidia-smi-q-x--A100-SXM4-40GB-MIG--1.xml", "nvidia-smi-q-x--A100-SXM4-80GB-MIG--1.xml",
                    "nvidia-smi-q-x--A10G--1.xml"}) {
    CAPTURE(file);
    std::string text = Fixture(file);
    auto report = ParseNvidiaSmiXml(text);
    REQUIRE(report.ok());
    REQUIRE(report->gpus.size() == 1);  // the 80GB capture keeps one of its 4 GPUs (attached_gpus 4)
    CHECK_FALSE(report->gpus[0].bus_id.empty());
    CHECK(report->gpus[0].aggregate_uncorrectable == 0);
    auto results = EvaluateGpuHealth("a", report, text, report->GpuCount(), EccPolicy{});
    CHECK(Named(results, "gpu.count").outcome == CheckOutcome::kPass);
    CHECK_MESSAGE(Named(results, "gpu.ecc").outcome == CheckOutcome::kPass, Named(results, "gpu.ecc").detail);
  }
  CHECK(ParseNvidiaSmiXml(Fixture("nvidia-smi-q-x--A100-SXM4-80GB-MIG--1.xml"))->attached == 4);
  std::string a10g = Fixture("nvidia-smi-q-x--A10G--1.xml");
  CHECK(ParseNvidiaSmiXml(a10g)->gpus[0].remap_pending == false);
  auto persistence = Named(EvaluateGpuHealth("a", ParseNvidiaSmiXml(a10g), a10g, 1, EccPolicy{}), "gpu.persistence");
  CHECK(persistence.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(persistence, "Persistence Mode Disabled"));
}

TEST_CASE("nvidia-smi --query-gpu CSV: H100 with ECC columns") {
  std::string text = Fixture("nvidia-smi-query-gpu--H100-80GB-HBM3--1.csv");
  auto report = ParseNvidiaSmiCsv(text);
  REQUIRE(report.ok());
  REQUIRE(report->gpus.size() == 1);
  CHECK(report->driver_version == "590.48.01");
  CHECK(report->gpus[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(report->gpus[0].persistence == true);
  CHECK(report->gpus[0].volatile_uncorrectable == 0);
  auto results = EvaluateGpuHealth("h", report, text, 1, EccPolicy{});
  for (const CheckResult& r : results) CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.check << ": " << r.detail);
}

TEST_CASE("nvidia-smi table: healthy captures pass; the RTX 4090 with ERR! fails with the line") {
  for (auto [file, gpus] : std::vector<std::pair<std::string, int>>{{"nvidia-smi--8xH100-SXM5-80GB--1.txt", 8},
                                                                     {"nvidia-smi--8xV100-SXM2-16GB--1.txt", 8},
                                                                     {"nvidia-smi--H200-141GB--1.txt", 1}}) {
    CAPTURE(file);
    std::string text = Fixture(file);
    auto report = ParseNvidiaSmiTable(text);
    REQUIRE(report.ok());
    CHECK(report->gpus.size() == static_cast<size_t>(gpus));
    auto results = EvaluateGpuHealth("n", report, text, gpus, EccPolicy{});
    CHECK(Named(results, "gpu.ecc").outcome == CheckOutcome::kPass);
    CHECK(Named(results, "gpu.persistence").outcome == CheckOutcome::kPass);
  }
  // In MIG mode the ECC column reads "On", not a count: ECC unknown, not a pass.
  std::string mig = Fixture("nvidia-smi--H100-80GB-HBM3-MIG--1.txt");
  auto mig_ecc = Named(EvaluateGpuHealth("n", ParseNvidiaSmiTable(mig), mig, 1, EccPolicy{}), "gpu.ecc");
  CHECK(mig_ecc.outcome == CheckOutcome::kFail);
  CHECK(mig_ecc.measured == "unknown");
  std::string text = Fixture("nvidia-smi--GeForce-RTX-4090--ERR--1.txt");
  auto report = ParseNvidiaSmiTable(text);
  REQUIRE(report.ok());
  REQUIRE(report->gpus.size() == 1);
  auto ecc = Named(EvaluateGpuHealth("ws", report, text, 1, EccPolicy{}), "gpu.ecc");
  CHECK(ecc.outcome == CheckOutcome::kFail);
  CHECK(ecc.detail.find("ERR!") != std::string::npos);
  CHECK(EvidenceHas(ecc, "|ERR!   38C"));
}

TEST_CASE("nvidia-smi -L: GPU lines counted, MIG lines not; a driver error is not a list") {
  auto list = ParseNvidiaSmiList(
      "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n  MIG 3g.20gb     Device  0: (UUID: MIG-1)\n"
      "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-2)\n");
  REQUIRE(list.ok());
  CHECK(list->size() == 2);
  ToolOutput failed = Output("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", 9);
  auto job = EvaluateGpuJob("gpu01", failed, 2);
  CHECK(job.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(job, "couldn't communicate"));
}

// ---- InfiniBand ----

TEST_CASE("ibstat: 2x ConnectX-3 FDR, all ports up at 56 Gb/s") {
  std::string text = Fixture("ibstat--2xConnectX-3-FDR--1.txt");
  auto ports = ParseIbstat(text);
  REQUIRE(ports.ok());
  REQUIRE_FALSE(ports->empty());
  auto result = EvaluateIbPorts("n", ports, text, "ibstat", nlohmann::json::object());
  CHECK_MESSAGE(result.outcome == CheckOutcome::kPass, result.detail);
}

TEST_CASE("ibstat: 8x ConnectX-7 NDR with Ethernet ports down: the InfiniBand rails pass, listing Ethernet ports fails") {
  std::string text = Fixture("ibstat--8xConnectX-7-NDR-IB--cx6dx-eth-ports-down--1.txt");
  auto ports = ParseIbstat(text);
  REQUIRE(ports.ok());
  auto result = EvaluateIbPorts("n", ports, text, "ibstat", nlohmann::json::object());
  CHECK_MESSAGE(result.outcome == CheckOutcome::kPass, result.detail);
  CHECK(result.measured == "8/8 ports up");
  CHECK(result.threshold.find("400 Gb/s") != std::string::npos);
  // Expecting every port, Ethernet included, finds the down ones.
  nlohmann::json all = {{"validate_ib_ports", nlohmann::json::array()}};
  for (const IbPortStatus& p : *ports) all["validate_ib_ports"].push_back(p.device + "/" + std::to_string(p.port));
  auto strict = EvaluateIbPorts("n", ports, text, "ibstat", all);
  CHECK(strict.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(strict, "State: Down"));
}

TEST_CASE("ibstat: RoCE 400G with 2 of 8 rails down: the rails listed in the inventory fail naming both") {
  std::string text = Fixture("ibstat--8xConnectX-7-RoCE-400G--2-ports-down--1.txt");
  auto ports = ParseIbstat(text);
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 12);
  // RoCE ports are Ethernet: by default there is nothing to check.
  CHECK(EvaluateIbPorts("h100", ports, text, "ibstat", nlohmann::json::object()).outcome == CheckOutcome::kSkip);
  // validate_ib_ports: the eight ConnectX-7 GPU rails (MT4129); validate_ib_rate_gbps: 400.
  nlohmann::json rails = {
      {"validate_ib_ports", {"mlx5_0/1", "mlx5_3/1", "mlx5_4/1", "mlx5_5/1", "mlx5_6/1", "mlx5_9/1", "mlx5_10/1", "mlx5_11/1"}},
      {"validate_ib_rate_gbps", 400}};
  auto result = EvaluateIbPorts("h100", ports, text, "ibstat", rails);
  CHECK(result.outcome == CheckOutcome::kFail);
  CHECK(result.measured == "6/8 ports up");
  CHECK(result.detail == "mlx5_5/1 state DOWN, physical state DISABLED; mlx5_11/1 state DOWN, physical state DISABLED");
  CHECK(EvidenceHas(result, "mlx5_5 port 1: State: Down, Physical state: Disabled, Rate: 40"));
}

TEST_CASE("ibstat: ibpanic after partial output fails with the ibpanic line") {
  std::string text = Fixture("ibstat--8xConnectX-6-HDR-VF-Azure--ibpanic--1.txt");
  auto ports = ParseIbstat(text);
  CHECK_FALSE(ports.ok());
  auto result = EvaluateIbPorts("n", ports, text, "ibstat", nlohmann::json::object());
  CHECK(result.outcome == CheckOutcome::kFail);
  CHECK(result.detail.find("ibpanic") != std::string::npos);
  CHECK(EvidenceHas(result, "stat of IB device 'mlx5_8' failed"));
}

TEST_CASE("ibv_devinfo: port 2 of each ConnectX-3 down fails naming them") {
  std::string text = Fixture("ibv_devinfo--2xConnectX-3-FDR--port2-down--1.txt");
  auto ports = ParseIbvDevinfo(text);
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 4);
  auto result = EvaluateIbPorts("n", ports, text, "ibv_devinfo", nlohmann::json::object());
  CHECK(result.outcome == CheckOutcome::kFail);
  CHECK(result.detail.find("mlx4_1/2 state DOWN") != std::string::npos);
  CHECK(result.detail.find("mlx4_0/2 state DOWN") != std::string::npos);
  CHECK(result.measured == "2/4 ports up");
}

TEST_CASE("ibstat listing no adapter while sysfs shows InfiniBand ports fails: the stack does not see them") {
  // The testbed's simulated adapters: ports in sysfs, no driver, so ibstat prints nothing and exits 0.
  IbPortStatus sysfs_port;
  sysfs_port.device = "mlx5_0";
  sysfs_port.port = 1;
  sysfs_port.state = "ACTIVE";
  sysfs_port.link_layer = "InfiniBand";
  auto none = AgainstSysfs(ParseIbstat(""), {sysfs_port});
  REQUIRE_FALSE(none.ok());
  auto result = EvaluateIbPorts("node02", none, "", "ibstat", nlohmann::json::object());
  CHECK(result.outcome == CheckOutcome::kFail);
  CHECK(result.detail == "ibstat: no adapter listed, but sysfs shows 1 InfiniBand port (mlx5_0/1): the RDMA stack does not see "
                         "the adapter (its driver is not loaded)");
  // RoCE-only sysfs ports (Ethernet) and an empty sysfs leave "no ports" as it is.
  sysfs_port.link_layer = "Ethernet";
  CHECK(AgainstSysfs(ParseIbstat(""), {sysfs_port}).ok());
  CHECK(AgainstSysfs(ParseIbstat(""), {}).ok());
}

TEST_CASE("ibstat and ibv_devinfo give the facts' adapter fields: model, firmware, PSID, GUIDs, LIDs") {
  std::vector<IbDeviceStatus> devices;
  auto ports = ParseIbstat(Fixture("ibstat--2xConnectX-3-FDR--1.txt"), &devices);
  REQUIRE(ports.ok());
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].device == "mlx4_0");
  CHECK(devices[0].model == "MT4099");
  CHECK(devices[0].firmware == "2.42.5000");
  CHECK(devices[0].psid.empty());  // ibstat does not print the board id
  CHECK(devices[0].node_guid == "0xec0d9a03000c8980");
  CHECK(devices[0].sys_image_guid == "0xec0d9a03000c8983");
  CHECK((*ports)[0].port_guid == "0xec0d9a03000c8981");
  CHECK((*ports)[0].lid == 10);
  CHECK((*ports)[1].lid == 12);

  // Mixed adapters: ConnectX-7 InfiniBand rails and ConnectX-6 Dx Ethernet, whose port GUID differs from the node's.
  devices.clear();
  ports = ParseIbstat(Fixture("ibstat--8xConnectX-7-NDR-IB--cx6dx-eth-ports-down--1.txt"), &devices);
  REQUIRE(ports.ok());
  REQUIRE(devices.size() == ports->size());
  CHECK(devices[0].model == "MT4129");
  CHECK(devices[0].firmware == "28.39.1002");
  CHECK(devices[1].model == "MT4125");
  CHECK(devices[1].node_guid == "0x946dae0300c2b690");
  CHECK((*ports)[1].port_guid == "0x966daefffec2b690");
  CHECK((*ports)[0].lid == 75);

  devices.clear();
  ports = ParseIbstat(Fixture("ibstat--8xConnectX-7-RoCE-400G--2-ports-down--1.txt"), &devices);
  REQUIRE(ports.ok());
  CHECK(devices.size() == 12);
  CHECK(devices[0].node_guid == "0xa088c20300adeab8");
  CHECK((*ports)[0].port_guid == "0xa288c2fffeadeab8");  // RoCE: the port GUID derives from the MAC
  CHECK((*ports)[0].lid == 0);

  // Azure's VFs: the node GUID is the VF's, the system image GUID the physical adapter's.
  devices.clear();
  CHECK_FALSE(ParseIbstat(Fixture("ibstat--8xConnectX-6-HDR-VF-Azure--ibpanic--1.txt"), &devices).ok());
  REQUIRE(devices.size() == 8);  // the adapters before ibpanic were read
  CHECK(devices[0].model == "MT4124");
  CHECK(devices[0].firmware == "20.41.1000");
  CHECK(devices[0].node_guid == "0x00155dfffe3411eb");
  CHECK(devices[0].sys_image_guid == "0xb83fd203006e2704");

  devices.clear();
  ports = ParseIbvDevinfo(Fixture("ibv_devinfo--2xConnectX-3-FDR--port2-down--1.txt"), &devices);
  REQUIRE(ports.ok());
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].device == "mlx4_1");
  CHECK(devices[0].firmware == "2.42.5000");
  CHECK(devices[0].psid == "MT_1090120019");
  CHECK(devices[0].model == "vendor_part_id 4099");
  CHECK(devices[0].node_guid == "0x7cfe900300a595c0");
  CHECK(devices[0].sys_image_guid == "0x7cfe900300a595c3");
  CHECK((*ports)[0].lid == 22);
  CHECK((*ports)[1].lid == 0);
}

TEST_CASE("ib_write_bw: HDR loopback at 8 MiB is ~24 GB/s, above the HDR floor; a lower floor override is honoured") {
  std::string text = Fixture("ib_write_bw--HDR-loopback--1.txt");
  auto rows = ParseIbWriteBw(text);
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 2);
  CHECK((*rows)[0].average_mbps == doctest::Approx(24056.72));
  IbWriteBwLimits t;
  t.message_bytes = 8388608;
  auto pass = EvaluateIbWriteBw("a+b", Output(text), 200, t);
  CHECK_MESSAGE(pass.outcome == CheckOutcome::kPass, pass.detail);
  CHECK(DefaultIbWriteBwFloorMbps(100) == doctest::Approx(11000));
  t.min_mbps = 30000;
  auto fail = EvaluateIbWriteBw("a+b", Output(text), 200, t);
  CHECK(fail.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(fail, "24056.72"));
  auto refused = EvaluateIbWriteBw("a+b", Output(" Couldn't connect to 10.0.0.2:18515\nUnable to open file descriptor for socket connection\n", 1), 200, IbWriteBwLimits{});
  CHECK(refused.outcome == CheckOutcome::kFail);
  CHECK(refused.detail.find("Couldn't connect") != std::string::npos);
}

// ---- NCCL ----

TEST_CASE("all_reduce_perf: 8xA100 in one node (old format, run with -c 0) clears the A100 floor but is not a pass") {
  std::string text = Fixture("all_reduce_perf--8xA100-SXM4-40GB-1node--1.txt");
  auto parsed = ParseNcclTests(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->ranks == 8);
  CHECK(parsed->out_of_bounds == 0);
  CHECK(parsed->rows.back().busbw_gbps == doctest::Approx(235.26));
  auto r = EvaluateNccl("nccl.node", CheckScope::kNode, "dgx01", Output(text), DefaultNodeBusbwFloorGbps("A100-SXM4-40GB"), std::nullopt);
  // Its error column reads N/A: nothing checked the results (no reading, no pass).
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "results not checked for correctness (wrong-value column N/A: validation off, run with -c 1)");
  CHECK(r.measured == "235.26 GB/s at 8589934592 B");
}

TEST_CASE("all_reduce_perf: 4x DGX A100 across nodes passes the 8x HDR floor") {
  std::string text = Fixture("all_reduce_perf--32xA100-4xDGX-A100--1.txt");
  auto r = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text), DefaultClusterBusbwFloorGbps(8 * 200), std::nullopt);
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured.find("191.05 GB/s") != std::string::npos);
}

TEST_CASE("all_reduce_perf: 2 nodes over GPUDirect-TCPXO: 123 us small messages fail the IB default, pass a TCPXO limit") {
  std::string text = Fixture("all_reduce_perf--16xH100-2nodes-GCP-A3Mega--1.txt");
  auto parsed = ParseNcclTests(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->ranks == 16);
  auto strict = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text), 200, 100);
  CHECK(strict.outcome == CheckOutcome::kFail);
  // the median of the ten sizes 8 B-4 KiB (each the better of out-of-place and in-place), not the first row
  CHECK(strict.detail.find("small-message latency: median 123 us over 8-4096 B") != std::string::npos);
  auto r = EvaluateNccl("nccl.cluster", CheckScope::kCluster, "c", Output(text), 200, kTcpxoSmallMessageMaxUs);
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
}

TEST_CASE("all_gather_perf: out-of-bounds values FAILED, with the wrong row and the summary as evidence") {
  std::string text = Fixture("all_gather_perf--8xV100-SXM2-32GB--oob-FAILED--1.txt");
  auto parsed = ParseNcclTests(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->out_of_bounds == 2);
  CHECK_FALSE(parsed->out_of_bounds_ok);
  auto r = EvaluateNccl("nccl.node", CheckScope::kNode, "v100", Output(text), 100, std::nullopt);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail.find("2 out-of-bounds values") != std::string::npos);
  CHECK(EvidenceHas(r, "Out of bounds values : 2 FAILED"));
  CHECK(EvidenceHas(r, "1e+00"));
}

TEST_CASE("all_reduce_perf cut short (no Out of bounds line) fails instead of passing on the rows it has") {
  std::string text = Fixture("all_reduce_perf--8xA100-SXM4-40GB-1node--1.txt");
  text = text.substr(0, text.find("# Out of bounds"));
  auto r = EvaluateNccl("nccl.node", CheckScope::kNode, "dgx01", Output(text), 10, std::nullopt);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail.find("did not finish") != std::string::npos);
}

// ---- Slurm ----

TEST_CASE("scontrol show node: oxygen-04 IDLE+DRAIN with its reason fails; allocated nodes pass") {
  auto nodes = ParseScontrolShowNode(Fixture("scontrol-show-node--1.txt"));
  REQUIRE(nodes.ok());
  REQUIRE(nodes->size() == 4);
  ToolOutput active = Output("active\n");
  int failed = 0;
  for (const SlurmNodeState& n : *nodes) {
    auto r = EvaluateSlurmNode(n.name, &n, active);
    if (n.name == "oxygen-04") {
      CHECK(r.outcome == CheckOutcome::kFail);
      CHECK(r.detail == "oxygen-04 is drained: memory issues? [root@2019-01-29T10:42:12]");
      CHECK(EvidenceHas(r, "State=IDLE+DRAIN"));
      ++failed;
    } else {
      CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, n.name << " " << n.state);
    }
  }
  CHECK(failed == 1);
  CHECK((*nodes)[0].gpus == 8);  // Gres=gpu:m60:8
  CHECK((*nodes)[0].gpu_types == std::vector<std::string>{"m60"});
  CHECK(EvaluateGres("cortex-01", (*nodes)[0], 8).outcome == CheckOutcome::kPass);
  CHECK(EvaluateGres("cortex-01", (*nodes)[0], 7).outcome == CheckOutcome::kFail);
  // Typed GRES: the type the node's model gives must be Slurm's.
  CheckResult same = EvaluateGres("cortex-01", (*nodes)[0], 8, "m60");
  CHECK(same.outcome == CheckOutcome::kPass);
  CHECK(same.measured == "m60:8");
  CheckResult other = EvaluateGres("cortex-01", (*nodes)[0], 8, "h100");
  CHECK(other.outcome == CheckOutcome::kFail);
  CHECK(other.detail == "Slurm types the GPUs of cortex-01 m60, the node's are h100");
  CHECK(EvidenceHas(other, "Gres=gpu:m60:8"));
  SlurmNodeState untyped = (*nodes)[0];  // a site's own untyped slurm.conf: the count is what is judged
  untyped.gpu_types.clear();
  CHECK(EvaluateGres("cortex-01", untyped, 8, "h100").outcome == CheckOutcome::kPass);
}

TEST_CASE("gres strings: GPU types in order, each once; untyped entries name none") {
  CHECK(GresGpuTypes("gpu:h100:4(S:0-1),gpu:l40s:2,gpu:h100:1") == std::vector<std::string>{"h100", "l40s"});
  CHECK(GresGpuCount("gpu:h100:4(S:0-1),gpu:l40s:2,gpu:h100:1") == 7);
  CHECK(GresGpuTypes("gpu:8,nsight:no_consume:1").empty());
  CHECK(GresGpuTypes("gpu:a100:4(S:0,1),gpfs:scratch:no_consume:1") == std::vector<std::string>{"a100"});
  CHECK(GresGpuTypes("(null)").empty());
}

TEST_CASE("sinfo -N -o: down*, drained, draining and fail* nodes are not usable; idle and allocated are") {
  auto nodes = ParseSinfoNodes(Fixture("sinfo-N-o--1.txt"));
  REQUIRE(nodes.ok());
  std::map<std::string, int> unusable;
  int usable = 0;
  for (const SlurmNodeState& n : *nodes) {
    if (n.usable) ++usable;
    else ++unusable[n.state];
  }
  CHECK(usable > 0);
  CHECK(unusable.count("down*"));
  CHECK(unusable.count("fail*"));
  CHECK(unusable.count("drained"));
  CHECK_FALSE(unusable.count("idle"));
  CHECK_FALSE(unusable.count("allocated"));
  auto down = std::find_if(nodes->begin(), nodes->end(), [](const SlurmNodeState& n) { return n.state == "down*"; });
  auto r = EvaluateSlurmNode(down->name, &*down, Output("active\n"));
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == down->name + " is down, not responding");
}

TEST_CASE("sinfo -N -O gres: drained* and draining@ fail; mixed-, reserved and completing are usable; Gres gpu:a100:4") {
  auto nodes = ParseSinfoNodes(Fixture("sinfo-N-O-gres--A100-cluster--1.txt"));
  REQUIRE(nodes.ok());
  std::map<std::string, bool> by_state;
  for (const SlurmNodeState& n : *nodes) by_state[n.state] = n.usable;
  CHECK(by_state.at("drained*") == false);
  CHECK(by_state.at("draining@") == false);
  CHECK(by_state.at("mixed-") == true);
  CHECK(by_state.at("reserved") == true);
  CHECK(by_state.at("completing") == true);
  CHECK(nodes->front().gpus == 4);
  CHECK(nodes->front().gpu_types == std::vector<std::string>{"a100"});
}

TEST_CASE("slurm.node: slurmd stopped fails even while slurmctld still lists the node idle; unregistered fails") {
  SlurmNodeState idle;
  idle.name = "node02";
  REQUIRE(ClassifySlurmState("IDLE", {}, "", idle).ok());
  idle.state = "IDLE";
  ToolOutput inactive = Output("inactive\n", 3);
  auto r = EvaluateSlurmNode("node02", &idle, inactive);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "slurmd is not running on node02 (systemctl is-active: inactive)");
  CHECK(EvaluateSlurmNode("node02", nullptr, Output("active\n")).outcome == CheckOutcome::kFail);
  SlurmNodeState odd;
  CHECK_FALSE(ClassifySlurmState("SLEEPY", {}, "", odd).ok());
}

TEST_CASE("scontrol ping") {
  auto up = ParseScontrolPing("Slurmctld(primary) at node01 is UP\n");
  REQUIRE(up.ok());
  CHECK((*up)[0] == std::make_pair(std::string("node01"), true));
  CHECK_FALSE(ParseScontrolPing("scontrol: error: ...").ok());
}

// ---- Xid, driver, peer memory (chrony: checks/clock_offset_test.cc) ----

TEST_CASE("Xid lines fail gpu.xid unless ignored; no Xid passes only when the kernel log has lines") {
  std::string log = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n";
  ToolOutput sample = Output("2026-11-23T10:00:00.000000+0000 node01 kernel: nvidia-nvswitch: Probing device\n");
  auto r = EvaluateXid("n", Output(log), sample, std::set<int>{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(r, "fallen off the bus"));
  std::set<int> ignore = {79};
  CHECK(EvaluateXid("n", Output(log), sample, ignore).outcome == CheckOutcome::kPass);
  CHECK(EvaluateXid("n", Output("", 1), sample, std::set<int>{}).outcome == CheckOutcome::kPass);
  CHECK(EvaluateXid("n", Output("Failed to get journal fields\n", 2), sample, std::set<int>{}).outcome == CheckOutcome::kFail);
  // No reading, no pass: a kernel log with no lines at all (journald in a
  // container does not read the kernel's) cannot show Xids.
  auto empty = EvaluateXid("n", Output("-- No entries --\n", 1), Output("-- No entries --\n"), std::set<int>{});
  CHECK(empty.outcome == CheckOutcome::kFail);
  CHECK(empty.measured == "unknown");
  CHECK(empty.detail.rfind("no reading: the kernel log since boot is empty", 0) == 0);
}

TEST_CASE("gpu.driver: GPUs on PCI without the nvidia module fail with driver not loaded; no GPUs skip") {
  auto r = EvaluateGpuDriver("node02", 2, {"overlay", "br_netfilter"}, "");
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail.rfind("driver not loaded", 0) == 0);
  CHECK(EvaluateGpuDriver("node02", 2, {"nvidia"}, "550.127.05").outcome == CheckOutcome::kPass);
  auto skip = EvaluateGpuDriver("node01", 0, {}, "");
  CHECK(skip.outcome == CheckOutcome::kSkip);
  CHECK(skip.detail == "no NVIDIA GPUs on the PCI bus of node01");
  CHECK(EvaluatePeerMemory("n", {"nvidia", "nvidia_peermem"}).outcome == CheckOutcome::kPass);
  CHECK(EvaluatePeerMemory("n", {"nvidia"}).outcome == CheckOutcome::kFail);
  // DMA-BUF needs no module; facts that cannot show it (no driver, proprietary modules) do not pass.
  CHECK(EvaluatePeerMemory("n", {"nvidia"}, {{"dmabuf", true}, {"kernel_modules", "open"}}).outcome ==
        CheckOutcome::kPass);
  CHECK(EvaluatePeerMemory("n", {"nvidia"}, {{"dmabuf", false}, {"kernel_modules", "proprietary"}}).outcome ==
        CheckOutcome::kFail);
}

// ---- no parser passes by default ----

TEST_CASE("every parser refuses every captured output that is not its own") {
  using Parser = std::function<bool(const std::string&)>;
  std::map<std::string, Parser> parsers = {
      // One format, two commands: -q -d PERFORMANCE prints -q's Clocks Event Reasons section alone.
      {"nvidia-smi-q--|nvidia-smi-q-d-PERFORMANCE--", [](const std::string& t) { return ParseNvidiaSmiQuery(t).ok(); }},
      {"nvidia-smi-q-x--", [](const std::string& t) { return ParseNvidiaSmiXml(t).ok(); }},
      {"nvidia-smi-query-gpu--", [](const std::string& t) { return ParseNvidiaSmiCsv(t).ok(); }},
      {"nvidia-smi--", [](const std::string& t) { return ParseNvidiaSmiTable(t).ok(); }},
      {"ibstat--", [](const std::string& t) { return ParseIbstat(t).ok(); }},
      {"ibv_devinfo--", [](const std::string& t) { return ParseIbvDevinfo(t).ok(); }},
      {"ib_write_bw--", [](const std::string& t) { return ParseIbWriteBw(t).ok(); }},
      {"all_", [](const std::string& t) { return ParseNcclTests(t).ok(); }},
      {"scontrol-show-node--", [](const std::string& t) { return ParseScontrolShowNode(t).ok(); }},
      {"sinfo-N-", [](const std::string& t) { return ParseSinfoNodes(t).ok(); }},
      // One format, two commands: the "nodes" array of Slurm's JSON.
      {"sinfo-json--|scontrol-show-node-json--", [](const std::string& t) { return ParseSlurmNodesJson(t).ok(); }},
      {"chronyc", [](const std::string& t) { return ParseChronyTracking(t).ok(); }},
      {"nvidia-smi-L--", [](const std::string& t) { return ParseNvidiaSmiList(t).ok(); }},
      {"nvidia-smi-L--|nvidia-smi-L--", [](const std::string& t) { return facts::ParseNvidiaSmiList(t).ok(); }},
      {"nvidia-smi-mig-lgip--", [](const std::string& t) { return facts::ParseMigProfiles(t).ok(); }},
      {"nvidia-smi-mig-lgi--", [](const std::string& t) { return facts::ParseMigGpuInstances(t).ok(); }},
      {"nvidia-smi-mig-lci--", [](const std::string& t) { return facts::ParseMigComputeInstances(t).ok(); }},
      {"nvidia-smi-nvlink-", [](const std::string& t) { return ParseNvlinkStatus(t).ok(); }},
      {"nvidia-smi-nvlink-e--", [](const std::string& t) { return ParseNvlinkErrors(t).ok(); }},
      {"dcgmi-diag-", [](const std::string& t) { return ParseDcgmDiag(t).ok(); }},
      {"dcgmi-diag-r-json-", [](const std::string& t) { return ParseDcgmDiagJson(t).ok(); }}};
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::SharedFixturesDir())) {
    std::string name = entry.path().filename().string();
    if (name == "SOURCES.md") continue;
    ++files;
    std::string text = Fixture(name);
    // An empty capture (nvidia-smi nvlink -s in a one-GPU VM) is no tool's
    // output in particular; what each parser makes of nothing is in its own test.
    if (text.empty()) continue;
    for (const auto& [prefix, parse] : parsers) {
      bool own = false;
      for (const std::string& p : Split(prefix, '|')) own = own || name.rfind(p, 0) == 0;
      // The prefixes are distinct by their "--": "nvidia-smi--" does not claim "nvidia-smi-q--".
      if (own) continue;
      CAPTURE(name);
      CAPTURE(prefix);
      CHECK_FALSE(parse(text));
    }
  }
  CHECK(files >= 52);  // the captures of SOURCES.md are all there
}

}  // namespace clusterctl
