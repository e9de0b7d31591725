// gpu.ecc: ECC on, no uncorrectable errors, no retirement or remap pending (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) { return GpuHealth("gpu.ecc", v); }

const CheckRegistration kGpuEcc({.name = "gpu.ecc",
                                 .scope = kNode,
                                 .summary = "ECC on, no uncorrectable errors or pending retirement/remap",
                                 .rank = 130,
                                 .requirements = {GpusOnPciBus()},
                                 .prerequisites = {DriverLoaded()},
                                 .probes = {&NvidiaSmiQueryProbe()},
                                 .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
