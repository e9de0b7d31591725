// gpu.nvlink: every NVLink up at full speed; the fabric manager done on NVSwitch systems.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const ProbeSpec kNvlinkStatus{.id = "nvidia-smi nvlink -s",
                              .commands = {{"nvidia-smi", "nvlink", "-s"}},
                              .timeout_s = 60,
                              .when = [](const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); }};

CheckResult Judge(const NodeView& v) {
  return JudgeReport("gpu.nvlink", v, [](const NodeView& view, const NvidiaSmiReport& report) {
    return EvaluateGpuNvlink(view.host(), view.node.Output(kNvlinkStatus.id), report, view.node.nvswitches,
                             view.thresholds);
  });
}

const CheckRegistration kGpuNvlink(NvidiaSmiCheck(
    "gpu.nvlink", "every NVLink up at full speed; fabric manager done on NVSwitch systems", 170, Judge, {&kNvlinkStatus}));

}  // namespace
}  // namespace clusterctl::checks
