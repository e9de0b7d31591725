// gpu.count: nvidia-smi sees the expected GPUs; with validate_gpus_expected
// set, PCI detection must find that many too (a GPU that fell off the bus).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

CheckResult Judge(const NodeView& v) {
  int expected = ExpectedGpus(v);
  if (GpusExpectedSet(v) && v.node.pci_gpus != expected && !NvidiaSmiMissing("gpu.count", v)) {
    return Fail("gpu.count", kNode, v.host(),
                "PCI detection finds " + std::to_string(v.node.pci_gpus) + " GPUs, the inventory expects " +
                    std::to_string(expected),
                {}, std::to_string(v.node.pci_gpus) + " on PCI", "== " + std::to_string(expected) + " (inventory)");
  }
  return GpuHealth("gpu.count", v);
}

CheckSpec Spec() {
  CheckSpec spec = NvidiaSmiCheck("gpu.count", "nvidia-smi sees the expected GPUs", 110, Judge);
  // Read by the other nvidia-smi checks too (ExpectedGpus, common.h).
  spec.variables = R"(
validate_gpus_expected:
  default: null
  type: integer
  minimum: 0
  description: GPUs every node must show (gpu.count); null, the PCI count
)";
  return spec;
}

const CheckRegistration kGpuCount(Spec());

}  // namespace
}  // namespace clusterctl::checks
