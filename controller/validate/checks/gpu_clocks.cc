// gpu.clocks: no hardware, thermal or power-brake slowdown active (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  return JudgeReport("gpu.clocks", v, [](const NodeView& view, const NvidiaSmiReport& report) {
    return EvaluateGpuClocks(view.host(), report);
  });
}

const CheckRegistration kGpuClocks(
    NvidiaSmiCheck("gpu.clocks", "no hardware, thermal or power-brake slowdown active", 160, Judge));

}  // namespace
}  // namespace clusterctl::checks
