// gpu.clocks: no hardware, thermal or power-brake slowdown active (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  if (auto missing = NvidiaSmiMissing("gpu.clocks", v)) return *missing;
  Result<NvidiaSmiReport> report = GpuReport(v.node);
  if (!report.ok()) return ReportUnreadable("gpu.clocks", v, report.status());
  return EvaluateGpuClocks(v.host(), *report);
}

const CheckRegistration kGpuClocks({.name = "gpu.clocks",
                                    .scope = kNode,
                                    .summary = "no hardware, thermal or power-brake slowdown active",
                                    .rank = 160,
                                    .requirements = {GpusOnPciBus()},
                                    .prerequisites = {DriverLoaded()},
                                    .probes = {&NvidiaSmiQueryProbe()},
                                    .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
