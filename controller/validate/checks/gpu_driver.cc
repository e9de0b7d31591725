// gpu.driver: the NVIDIA driver is loaded (the nvidia module and a driver version).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  return EvaluateGpuDriver(v.host(), v.node.pci_gpus, v.node.modules, v.node.driver_version);
}

const CheckRegistration kGpuDriver({.name = "gpu.driver",
                                    .scope = kNode,
                                    .summary = "the NVIDIA driver is loaded",
                                    .rank = 100,
                                    .requirements = {GpusOnPciBus()},
                                    .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
