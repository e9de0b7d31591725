// gpu.nvlink_errors: no NVLink link's CRC, replay or recovery counter over its limit.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const ProbeSpec kNvlinkErrors{.id = "nvidia-smi nvlink -e",
                              .commands = {{"nvidia-smi", "nvlink", "-e"}},
                              .timeout_s = 60,
                              .when = [](const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); }};

CheckResult Judge(const NodeView& v) {
  NvlinkErrorLimits limits;
  limits.crc_max = IntegerVariable(v.vars, "validate_gpu_nvlink_crc_errors_max").value_or(limits.crc_max);
  limits.replay_max = IntegerVariable(v.vars, "validate_gpu_nvlink_replay_errors_max").value_or(limits.replay_max);
  limits.recovery_max = IntegerVariable(v.vars, "validate_gpu_nvlink_recovery_errors_max").value_or(limits.recovery_max);
  return EvaluateNvlinkErrors(v.host(), v.node.Output(kNvlinkErrors.id), limits);
}

const CheckRegistration kGpuNvlinkErrors(
    {.name = "gpu.nvlink_errors",
     .scope = kNode,
     .summary = "no NVLink link's CRC, replay or recovery error counter over its limit",
     .rank = 175,
     .requirements = {GpusOnPciBus()},
     .prerequisites = {DriverLoaded()},
     .probes = {&kNvlinkErrors},
     .verdict = Judge,
     .variables = R"(
validate_gpu_nvlink_crc_errors_max:
  default: 0
  type: integer
  minimum: 0
  description: most CRC errors gpu.nvlink_errors allows on one NVLink link (nvidia-smi nvlink -e, since the driver loaded or the counters were reset)
validate_gpu_nvlink_replay_errors_max:
  default: 0
  type: integer
  minimum: 0
  description: most replay errors gpu.nvlink_errors allows on one NVLink link
validate_gpu_nvlink_recovery_errors_max:
  default: 0
  type: integer
  minimum: 0
  description: most recovery errors gpu.nvlink_errors allows on one NVLink link
)"});

}  // namespace
}  // namespace clusterctl::checks
