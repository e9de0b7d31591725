// The validation checks' verdicts as pure functions of what the tools printed
// and the limits their specs read from the check variables, so each is tested on real captured outputs
// (tests/fixtures/captured) without a cluster. A tool output a parser does
// not understand fails the check with that output as evidence.
#pragma once

#include <optional>
#include <set>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "controller/validate/check_result.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/nvidia_smi.h"
#include "controller/validate/nvrm_log.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/reference_floors.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {

// "1 GPU", "2 GPUs".
std::string Plural(long long n, const char* word);

// A tool that did not run, timed out or failed, or whose output could not be
// used (`problem`, e.g. the parser's error): why in one line, with the
// output line that says why when there is one, and the lines that show it.
CheckResult ToolFailed(const std::string& check, CheckScope scope, const std::string& subject, const char* tool,
                       const ToolOutput& output, const std::string& problem = "", const std::string& threshold = "");

// driver loaded: the nvidia module in /proc/modules and a driver version.
CheckResult EvaluateGpuDriver(const std::string& host, int pci_gpus, const std::vector<std::string>& modules,
                              const std::string& driver_version);

// gpu.ecc's limits: its variables (checks/gpu_ecc.cc declares them), their defaults here.
struct EccPolicy {
  bool required = true;                       // validate_gpu_ecc_required: ECC off or absent fails (false: a skip)
  long long aggregate_uncorrectable_max = 0;  // validate_gpu_aggregate_uncorrectable_max
};

// gpu.count, gpu.persistence, gpu.ecc from nvidia-smi -q (any format's
// report). `expected_from_inventory`: expected_gpus is validate_gpus_expected
// (the threshold says "inventory"), not the PCI count.
std::vector<CheckResult> EvaluateGpuHealth(const std::string& host, const Result<NvidiaSmiReport>& report,
                                           const std::string& raw_output, int expected_gpus, const EccPolicy& ecc,
                                           bool expected_from_inventory = false);

// gpu.xid from the NVIDIA driver's kernel log lines since boot (journalctl
// -k -b --grep NVRM): Xids and the fatal messages that come without one
// (nvrm_log.h). `kernel_log_sample` is the last kernel line since boot: when
// the log is empty there is nothing to read Xids from, which is not a pass.
// `ignored`: the Xid codes not counted (validate_gpu_xid_ignore).
CheckResult EvaluateXid(const std::string& host, const ToolOutput& kernel_log, const ToolOutput& kernel_log_sample,
                        const std::set<int>& ignored);

// The Xids and fatal driver messages of a kernel log read (nvrm_log.h) that
// count: every one but the `ignored` codes, and an ignored code's named
// cause (gpu.xid, gpu.soak). `found`: "Xid 79 x2" (at most 16, then "N
// more"); `evidence`: each with its first line; `counted`: their lines.
struct DriverErrors {
  std::vector<std::string> found, evidence, ignored;
  long long counted = 0;
};
DriverErrors FindDriverErrors(const NvrmLog& nvrm, const std::set<int>& ignored);
// Whether `journalctl ... --grep` read the log: exit 0, or 1 with nothing matched.
bool JournalGrepRead(const ToolOutput& log);

// gpu.pcie: every GPU's link at its maximum width and generation (-q "GPU
// Link Info"). A generation below the maximum while the GPU idles in P8 or
// lower is power saving, reported and not judged; the width always is.
// The floors (validate_gpu_pcie_gen_min, validate_gpu_pcie_width_min); unset: each GPU's own maximum.
struct PcieFloor {
  std::optional<int> generation;
  std::optional<int> width;
};
CheckResult EvaluateGpuPcie(const std::string& host, const NvidiaSmiReport& report, const PcieFloor& floor);

// The clock event (throttle) reasons that mean the hardware or its cooling
// slows a GPU: HW Slowdown, HW Thermal Slowdown, HW Power Brake Slowdown, SW
// Thermal Slowdown (the others, idle, application clocks, a power cap under
// load, sync boost, are normal). gpu.clocks and gpu.soak judge these.
inline constexpr const char* kSlowdownThreshold = "no HW slowdown, HW thermal, HW power brake or SW thermal slowdown active";
struct GpuSlowdown {
  std::vector<std::string> active;        // the active reasons' names as printed ("HW Power Brake Slowdown")
  std::vector<std::string> active_lines;  // their lines
  std::vector<std::string> lines;         // the judged reasons' lines that are active or unreadable
  std::vector<std::string> unknown;       // why the GPU has no reading ("no Clocks Event Reasons section")
};
GpuSlowdown SlowdownOf(const GpuStatus& gpu);

// gpu.clocks: no hardware slowdown, thermal or power-brake clock event
// (throttle) reason active on any GPU.
CheckResult EvaluateGpuClocks(const std::string& host, const NvidiaSmiReport& report);

// gpu.nvlink: the expected number of NVLink links up at the expected speed
// (`nvidia-smi nvlink -s`; the number from validate_gpu_nvlinks, else the
// GPU model where it fixes it, else the node's most), and on NVSwitch systems (`nvswitches` > 0) each GPU's fabric state
// Completed/Success where the driver reports it.
struct NvlinkExpectation {
  std::optional<int> links;    // validate_gpu_nvlinks: links every GPU must have up
  std::optional<double> gbps;  // validate_gpu_nvlink_gbps: each link's speed; unset: the node's fastest link
};
CheckResult EvaluateGpuNvlink(const std::string& host, const ToolOutput& nvlink_status, const NvidiaSmiReport& report,
                              int nvswitches, const NvlinkExpectation& expected);

// gpu.nvlink_errors: `nvidia-smi nvlink -e`: each link's CRC, replay and
// recovery counters (since the driver loaded or `nvidia-smi nvlink -re`) at
// most their limits (checks/gpu_nvlink_errors.cc declares the variables).
// Other counters a driver prints are not judged; links none of whose three
// counters were printed are no reading (a failure).
struct NvlinkErrorLimits {
  long long crc_max = 0;       // validate_gpu_nvlink_crc_errors_max
  long long replay_max = 0;    // validate_gpu_nvlink_replay_errors_max
  long long recovery_max = 0;  // validate_gpu_nvlink_recovery_errors_max
};
CheckResult EvaluateNvlinkErrors(const std::string& host, const ToolOutput& nvlink_errors, const NvlinkErrorLimits& limits);

// gpu.dcgm: `dcgmi diag -r 1`: every test Pass (or Skip), at least one Pass, exit 0.
CheckResult EvaluateDcgmDiag(const std::string& host, const ToolOutput& diag);

// ib.ports: every expected port Active, LinkUp, at the expected rate. `ports`
// from ibstat/ibv_devinfo/sysfs; `source` names it in the result. `vars`:
// the host's check variables (NodeView::vars): validate_ib_ports (as
// ExpectedIbPorts) and validate_ib_rate_gbps (unset or null: the fastest
// expected port), both declared by ib.ports (checks/ib_ports.cc).
CheckResult EvaluateIbPorts(const std::string& host, const Result<std::vector<IbPortStatus>>& ports,
                            const std::string& raw_output, const std::string& source, const nlohmann::json& vars);
// A tool's port list read against the facts' sysfs ports: a tool that
// prints no adapter while sysfs shows InfiniBand ports means the RDMA stack
// does not see them (no driver loaded), which is a failure, not "no ports".
Result<std::vector<IbPortStatus>> AgainstSysfs(Result<std::vector<IbPortStatus>> ports,
                                               const std::vector<IbPortStatus>& sysfs_ports);
// The ports ib.ports expects of a node (ib.write_bw and mpi.cluster use
// them too): validate_ib_ports of `vars`, the host's check variables
// (NodeView::vars; a configured port the node lacks is listed "not
// present"), or, where it is empty or unset, every InfiniBand port of `ports`.
std::vector<IbPortStatus> ExpectedIbPorts(const std::vector<IbPortStatus>& ports, const nlohmann::json& vars);

// GPUDirect RDMA is possible: a peer-memory module is loaded, or (no module
// needed) the node's facts show DMA-BUF support (`gpudirect.dmabuf`: open
// kernel modules R515+, kernel 5.12+, an RDMA stack that registers DMA-BUF).
// `log_errors` (PeerMemoryErrors): the kernel log's peer-memory error lines,
// the evidence of why the module is not loaded (an nvidia_peermem built
// against another ib_core: "Unknown symbol ib_register_peer_memory_client"),
// or a note beside a pass (a loaded module's runtime errors are not judged).
CheckResult EvaluatePeerMemory(const std::string& host, const std::vector<std::string>& modules,
                               const nlohmann::json& gpudirect = nullptr, const std::vector<std::string>& log_errors = {});
// The lines of a kernel log (journalctl -k --grep 'peermem|peer_mem') where
// nvidia-peermem / nv_peer_mem reports an error: an error, an unknown or
// mismatched symbol, a failure. At most 8, printable.
std::vector<std::string> PeerMemoryErrors(std::string_view kernel_log);

// ib.write_bw's limits (its variables validate_ib_write_bw_min_mbps and
// validate_ib_write_bw_message_bytes): a bandwidth floor at a message size.
struct IbWriteBwLimits {
  std::optional<double> min_mbps;  // nullopt: 88% of the pair's line rate (DefaultIbWriteBwFloorMbps)
  long long message_bytes = 65536;
};

// ib.write_bw between a pair: the client's output, at the message size.
CheckResult EvaluateIbWriteBw(const std::string& pair, const ToolOutput& client, double line_rate_gbps,
                              const IbWriteBwLimits& limits);

// nccl.node or nccl.cluster: all_reduce_perf's output against the bus
// bandwidth floor at the largest size and, across nodes
// (`small_message_max_us` set), the small-message latency ceiling.
CheckResult EvaluateNccl(const std::string& check, CheckScope scope, const std::string& subject,
                         const ToolOutput& output, double busbw_floor_gbps,
                         std::optional<double> small_message_max_us);

// slurm.node: the controller's view of the node (nullptr: not registered)
// and whether slurmd runs there.
CheckResult EvaluateSlurmNode(const std::string& host, const SlurmNodeState* state, const ToolOutput& slurmd_active);

// slurm.gres: the GPUs Slurm has for the node against the detected ones,
// and the type Slurm gives them against `expected_type` (the facts' model,
// controller/views/gpu_type.h; "" when the node's GPUs have none). Untyped
// GRES pass on the count: only a type other than the model's fails.
CheckResult EvaluateGres(const std::string& host, const SlurmNodeState& state, int detected_gpus,
                         const std::string& expected_type = "");

// slurm.gpu_job: nvidia-smi -L inside a job given all the node's GPUs.
CheckResult EvaluateGpuJob(const std::string& host, const ToolOutput& job, int expected_gpus);

}  // namespace clusterctl
