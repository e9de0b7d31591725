// gpu.xid: no Xid and no fatal NVIDIA driver message in the kernel log since boot.
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
  return EvaluateXid(v.host(), v.node.Output(kDriverLines.id), v.node.Output(kLastKernelLine.id), v.thresholds);
}

const CheckRegistration kGpuXid({.name = "gpu.xid",
                                 .scope = kNode,
                                 .summary = "no Xid and no fatal NVIDIA driver message in the kernel log since boot",
                                 .rank = 140,
                                 .requirements = {GpusOnPciBus()},
                                 .probes = {&kDriverLines, &kLastKernelLine},
                                 .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
