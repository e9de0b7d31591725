// gpu.dcgm: dcgmi diag -r 1 passes.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const ProbeSpec kDcgmDiag{.id = "dcgmi diag -r 1",
                          .commands = {{"dcgmi", "diag", "-r", "1"}},
                          .timeout_s = 300,
                          .when = [](const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); },
                          .executable = "/usr/bin/dcgmi"};

CheckResult Judge(const NodeView& v) {
  if (auto missing = NvidiaSmiMissing("gpu.dcgm", v)) return *missing;
  const ToolOutput& diag = v.node.Output(kDcgmDiag.id);
  if (!diag.started) return Skip("gpu.dcgm", kNode, v.host(), "DCGM is not installed on " + v.host() + " (no /usr/bin/dcgmi)");
  return EvaluateDcgmDiag(v.host(), diag);
}

const CheckRegistration kGpuDcgm(NvidiaSmiCheck("gpu.dcgm", "dcgmi diag -r 1 passes", 180, Judge, {&kDcgmDiag}));

}  // namespace
}  // namespace clusterctl::checks
