// The validation checks' verdicts as pure functions of what the tools printed
// and the thresholds, so each is tested on real captured outputs
// (tests/fixtures/captured) without a cluster. A tool output a parser does
// not understand fails the check with that output as evidence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/validate/check_result.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/nvidia_smi.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/thresholds.h"

namespace clusterctl {

// What one command printed on a node.
struct ToolOutput {
  int exit_code = 0;
  bool started = true;  // false: the program does not exist there
  std::string out;
  std::string err;
  bool timed_out = false;
  std::string Both() const { return out + (err.empty() ? "" : "\n" + err); }
};

// Names of every check, in report order, and the prefixes --checks accepts.
const std::vector<std::string>& AllCheckNames();

CheckResult EvaluateClock(const std::string& host, const ToolOutput& chronyc_tracking, const Thresholds& t);

// driver loaded: the nvidia module in /proc/modules and a driver version.
CheckResult EvaluateGpuDriver(const std::string& host, int pci_gpus, const std::vector<std::string>& modules,
                              const std::string& driver_version);

// gpu.count, gpu.persistence, gpu.ecc from nvidia-smi -q (any format's report).
std::vector<CheckResult> EvaluateGpuHealth(const std::string& host, const Result<NvidiaSmiReport>& report,
                                           const std::string& raw_output, int expected_gpus, const Thresholds& t);

// gpu.xid from the kernel log lines since boot (journalctl -k -b).
CheckResult EvaluateXid(const std::string& host, const ToolOutput& kernel_log, const Thresholds& t);

// ib.ports: every expected port Active, LinkUp, at the expected rate. `ports`
// from ibstat/ibv_devinfo/sysfs; `source` names it in the result.
CheckResult EvaluateIbPorts(const std::string& host, const Result<std::vector<IbPortStatus>>& ports,
                            const std::string& raw_output, const std::string& source, const Thresholds& t);
// The ports ib.ports expects: the configured list, or every InfiniBand port.
std::vector<IbPortStatus> ExpectedIbPorts(const std::vector<IbPortStatus>& ports, const Thresholds& t);

CheckResult EvaluatePeerMemory(const std::string& host, const std::vector<std::string>& modules);

// ib.write_bw between a pair: the client's output, at the message size.
CheckResult EvaluateIbWriteBw(const std::string& pair, const ToolOutput& client, double line_rate_gbps,
                              const Thresholds& t);

// nccl.node (one node, `cross_node` false) or nccl.cluster.
CheckResult EvaluateNccl(const std::string& check, CheckScope scope, const std::string& subject,
                         const ToolOutput& output, double busbw_floor_gbps, bool cross_node, const Thresholds& t);

// slurm.node: the controller's view of the node (nullptr: not registered)
// and whether slurmd runs there.
CheckResult EvaluateSlurmNode(const std::string& host, const SlurmNodeState* state, const ToolOutput& slurmd_active);

// slurm.gres: the GPUs Slurm has for the node against the detected ones.
CheckResult EvaluateGres(const std::string& host, const SlurmNodeState& state, int detected_gpus);

// slurm.gpu_job: nvidia-smi -L inside a job given all the node's GPUs.
CheckResult EvaluateGpuJob(const std::string& host, const ToolOutput& job, int expected_gpus);

}  // namespace clusterctl
