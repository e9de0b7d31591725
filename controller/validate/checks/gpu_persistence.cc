// gpu.persistence: persistence mode on every GPU (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) { return GpuHealth("gpu.persistence", v); }

const CheckRegistration kGpuPersistence({.name = "gpu.persistence",
                                         .scope = kNode,
                                         .summary = "persistence mode on every GPU",
                                         .rank = 120,
                                         .requirements = {GpusOnPciBus()},
                                         .prerequisites = {DriverLoaded()},
                                         .probes = {&NvidiaSmiQueryProbe()},
                                         .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
