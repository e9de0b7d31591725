// gpu.pcie: every GPU's PCIe link at its full width and generation (nvidia-smi -q).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  if (auto missing = NvidiaSmiMissing("gpu.pcie", v)) return *missing;
  Result<NvidiaSmiReport> report = GpuReport(v.node);
  if (!report.ok()) return ReportUnreadable("gpu.pcie", v, report.status());
  return EvaluateGpuPcie(v.host(), *report, v.thresholds);
}

const CheckRegistration kGpuPcie({.name = "gpu.pcie",
                                  .scope = kNode,
                                  .summary = "every GPU's PCIe link at its full width and generation",
                                  .rank = 150,
                                  .requirements = {GpusOnPciBus()},
                                  .prerequisites = {DriverLoaded()},
                                  .probes = {&NvidiaSmiQueryProbe()},
                                  .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
