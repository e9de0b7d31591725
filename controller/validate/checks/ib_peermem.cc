// ib.peermem: GPUDirect RDMA is possible on a GPU + InfiniBand node.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

Requirement GpusForPeerMemory() {
  return {[](const NodeView& v) { return v.node.HasGpus(); },
          [](const NodeView& v) { return "no GPUs on " + v.host() + " (peer memory is for GPU+InfiniBand nodes)"; }};
}

CheckResult Judge(const NodeView& v) {
  return EvaluatePeerMemory(v.host(), v.node.modules, v.node.facts.value("gpudirect", nlohmann::json()));
}

const CheckRegistration kIbPeermem(
    {.name = "ib.peermem",
     .scope = kNode,
     .summary = "GPUDirect RDMA is possible: a peer memory module is loaded, or DMA-BUF",
     .rank = 200,
     .requirements = {GpusForPeerMemory(), InfinibandPorts()},
     .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
