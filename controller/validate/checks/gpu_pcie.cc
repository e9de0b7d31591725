// gpu.pcie: every GPU's PCIe link at its full width and generation (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  return JudgeReport("gpu.pcie", v, [](const NodeView& view, const NvidiaSmiReport& report) {
    std::optional<long long> generation = IntegerVariable(view.vars, "validate_gpu_pcie_gen_min");
    std::optional<long long> width = IntegerVariable(view.vars, "validate_gpu_pcie_width_min");
    PcieFloor floor;
    if (generation) floor.generation = static_cast<int>(*generation);
    if (width) floor.width = static_cast<int>(*width);
    return EvaluateGpuPcie(view.host(), report, floor);
  });
}

CheckSpec Spec() {
  CheckSpec spec = NvidiaSmiCheck("gpu.pcie", "every GPU's PCIe link at its full width and generation", 150, Judge);
  spec.variables = R"(
validate_gpu_pcie_gen_min:
  default: null
  type: integer
  minimum: 1
  description: PCIe generation every GPU must reach when not idle; null, each GPU's maximum
validate_gpu_pcie_width_min:
  default: null
  type: integer
  minimum: 1
  description: PCIe lanes every GPU must have trained; null, each GPU's maximum width
)";
  return spec;
}

const CheckRegistration kGpuPcie(Spec());

}  // namespace
}  // namespace clusterctl::checks
