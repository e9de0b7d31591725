// gpu.pcie: every GPU's PCIe link at its full width and generation (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  return JudgeReport("gpu.pcie", v, [](const NodeView& view, const NvidiaSmiReport& report) {
    return EvaluateGpuPcie(view.host(), report, view.thresholds);
  });
}

const CheckRegistration kGpuPcie(
    NvidiaSmiCheck("gpu.pcie", "every GPU's PCIe link at its full width and generation", 150, Judge));

}  // namespace
}  // namespace clusterctl::checks
