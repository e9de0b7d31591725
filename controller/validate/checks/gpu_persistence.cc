// gpu.persistence: persistence mode on every GPU (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) { return GpuHealth("gpu.persistence", v); }

const CheckRegistration kGpuPersistence(NvidiaSmiCheck("gpu.persistence", "persistence mode on every GPU", 120, Judge));

}  // namespace
}  // namespace clusterctl::checks
