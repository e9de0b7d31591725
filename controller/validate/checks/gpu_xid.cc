// gpu.xid: no Xid and no fatal NVIDIA driver message in the kernel log since boot.
#include <set>

#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

// Every driver line: the Xids and the fatal messages that come without one.
const ProbeSpec kDriverLines{
    .id = "kernel log NVRM",
    .commands = {{"journalctl", "-q", "-k", "-b", "0", "-o", "short-precise", "--no-pager", "--grep", "NVRM"}},
    .timeout_s = 60};
// The last kernel line since boot: is there a log to read Xids from at all?
const ProbeSpec kLastKernelLine{
    .id = "kernel log last line",
    .commands = {{"journalctl", "-q", "-k", "-b", "0", "-n", "1", "-o", "short-precise", "--no-pager"}},
    .timeout_s = 30};

CheckResult Judge(const NodeView& v) {
  std::set<int> ignored;
  for (long long code : IntegersVariable(v.vars, "validate_gpu_xid_ignore")) ignored.insert(static_cast<int>(code));
  return EvaluateXid(v.host(), v.node.Output(kDriverLines.id), v.node.Output(kLastKernelLine.id), ignored);
}

const CheckRegistration kGpuXid({.name = "gpu.xid",
                                 .scope = kNode,
                                 .summary = "no Xid and no fatal NVIDIA driver message in the kernel log since boot",
                                 .rank = 140,
                                 .requirements = {GpusOnPciBus()},
                                 .probes = {&kDriverLines, &kLastKernelLine},
                                 .verdict = Judge,
                                 .variables = R"(
validate_gpu_xid_ignore:
  default: []
  items: {type: integer, minimum: 0}
  description: Xid codes not counted by gpu.xid (e.g. [13, 31, 43], application faults)
)"});

}  // namespace
}  // namespace clusterctl::checks
