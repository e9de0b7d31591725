// gpu.driver: the NVIDIA driver is loaded (the nvidia module and a driver
// version); the testbed's simulated module is none, and fails named.
#include "common/nvidia_facts.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  if (SimulatedNvidiaDriver(v.node.facts)) {
    return Fail("gpu.driver", kNode, v.host(),
                "driver not loaded: " + Plural(v.node.pci_gpus, "NVIDIA GPU") +
                    " on the PCI bus, but the nvidia module is the testbed's SIMULATED one",
                {"/sys/module/nvidia/SIMULATED: present"}, "simulated", "loaded");
  }
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
