// gpu.ecc: ECC on, no uncorrectable errors, no retirement or remap pending (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) { return GpuHealth("gpu.ecc", v); }

const CheckRegistration kGpuEcc(
    NvidiaSmiCheck("gpu.ecc", "ECC on, no uncorrectable errors or pending retirement/remap", 130, Judge));

}  // namespace
}  // namespace clusterctl::checks
