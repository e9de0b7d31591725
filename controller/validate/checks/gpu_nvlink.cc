// gpu.nvlink: every NVLink up at full speed; the fabric manager done on NVSwitch systems.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const ProbeSpec kNvlinkStatus{.id = "nvidia-smi nvlink -s",
                              .commands = {{"nvidia-smi", "nvlink", "-s"}},
                              .timeout_s = 60,
                              .when = [](const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); }};

CheckResult Judge(const NodeView& v) {
  if (auto missing = NvidiaSmiMissing("gpu.nvlink", v)) return *missing;
  Result<NvidiaSmiReport> report = GpuReport(v.node);
  if (!report.ok()) return ReportUnreadable("gpu.nvlink", v, report.status());
  return EvaluateGpuNvlink(v.host(), v.node.Output(kNvlinkStatus.id), *report, v.node.nvswitches, v.thresholds);
}

const CheckRegistration kGpuNvlink(
    {.name = "gpu.nvlink",
     .scope = kNode,
     .summary = "every NVLink up at full speed; fabric manager done on NVSwitch systems",
     .rank = 170,
     .requirements = {GpusOnPciBus()},
     .prerequisites = {DriverLoaded()},
     .probes = {&NvidiaSmiQueryProbe(), &kNvlinkStatus},
     .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
