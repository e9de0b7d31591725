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
    NvlinkExpectation expected;
    if (auto links = IntegerVariable(view.vars, "validate_gpu_nvlinks")) expected.links = static_cast<int>(*links);
    expected.gbps = NumberVariable(view.vars, "validate_gpu_nvlink_gbps");
    return EvaluateGpuNvlink(view.host(), view.node.Output(kNvlinkStatus.id), report, view.node.nvswitches, expected);
  });
}

CheckSpec Spec() {
  CheckSpec spec = NvidiaSmiCheck("gpu.nvlink", "every NVLink up at full speed; fabric manager done on NVSwitch systems",
                                  170, Judge, {&kNvlinkStatus});
  spec.variables = R"(
validate_gpu_nvlinks:
  default: null
  type: integer
  minimum: 0
  description: NVLink links every GPU must have up; null, the model's count or the most any GPU has
validate_gpu_nvlink_gbps:
  default: null
  type: number
  minimum: 0
  description: speed of each NVLink link in GB/s; null, the fastest link of the node
)";
  return spec;
}

const CheckRegistration kGpuNvlink(Spec());

}  // namespace
}  // namespace clusterctl::checks
