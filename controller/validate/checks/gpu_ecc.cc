// gpu.ecc: ECC on, no uncorrectable errors, no retirement or remap pending (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  EccPolicy ecc;
  ecc.required = BoolVariable(v.vars, "validate_gpu_ecc_required").value_or(ecc.required);
  ecc.aggregate_uncorrectable_max =
      IntegerVariable(v.vars, "validate_gpu_aggregate_uncorrectable_max").value_or(ecc.aggregate_uncorrectable_max);
  return GpuHealth("gpu.ecc", v, ecc);
}

CheckSpec Spec() {
  CheckSpec spec = NvidiaSmiCheck("gpu.ecc", "ECC on, no uncorrectable errors or pending retirement/remap", 130, Judge);
  spec.variables = R"(
validate_gpu_aggregate_uncorrectable_max:
  default: 0
  minimum: 0
  description: lifetime uncorrectable ECC errors a GPU may have had (gpu.ecc)
validate_gpu_ecc_required:
  default: true
  description: ECC must be on (gpu.ecc); false makes ECC off or absent a skip
)";
  return spec;
}

const CheckRegistration kGpuEcc(Spec());

}  // namespace
}  // namespace clusterctl::checks
