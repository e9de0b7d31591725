// ib.peermem: GPUDirect RDMA is possible on a GPU + InfiniBand node.
#include "common/nvidia_facts.h"
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

// The peer-memory modules' kernel log lines since boot: why nvidia_peermem
// did not load ("Unknown symbol ib_register_peer_memory_client", built
// against another ib_core), or its errors since. The verdict is
// /proc/modules' and the facts'; the log is its evidence, and a log that
// cannot be read is no reading (as for gpu.xid).
const ProbeSpec kPeerMemoryLog{
    .id = "kernel log peermem",
    .commands = {{"journalctl", "-q", "-k", "-b", "0", "-o", "short-precise", "--no-pager", "--grep", "peermem|peer_mem"}},
    .timeout_s = 60};

Requirement GpusForPeerMemory() {
  return {[](const NodeView& v) { return v.node.HasGpus(); },
          [](const NodeView& v) { return "no GPUs on " + v.host() + " (peer memory is for GPU+InfiniBand nodes)"; }};
}

CheckResult Judge(const NodeView& v) {
  const ToolOutput& log = v.node.Output(kPeerMemoryLog.id);
  // journalctl --grep exits 1 with nothing printed when no line matched; exit 0 has the lines.
  std::string_view out = Trim(log.out);
  bool none = log.exit_code == 1 && log.signal == 0 && (out.empty() || out == "-- No entries --");
  if (!log.started || log.timed_out || (log.exit_code != 0 && !none) || (log.exit_code == 0 && out.empty())) {
    return ToolFailed("ib.peermem", kNode, v.host(), "journalctl -k", log, "the kernel log's peer-memory lines cannot be read");
  }
  if (log.truncated) {
    return ToolFailed("ib.peermem", kNode, v.host(), "journalctl -k", log,
                      "the kernel log's peer-memory lines were cut at the agent's output limit");
  }
  std::vector<std::string> errors = none ? std::vector<std::string>{} : PeerMemoryErrors(log.out);
  // DMA-BUF by the testbed's simulated module's facts is no reading.
  const nlohmann::json gpudirect =
      SimulatedNvidiaDriver(v.node.facts) ? nlohmann::json() : v.node.facts.value("gpudirect", nlohmann::json());
  return EvaluatePeerMemory(v.host(), v.node.modules, gpudirect, errors);
}

const CheckRegistration kIbPeermem(
    {.name = "ib.peermem",
     .scope = kNode,
     .summary = "GPUDirect RDMA is possible: a peer memory module is loaded, or DMA-BUF",
     .rank = 200,
     .requirements = {GpusForPeerMemory(), InfinibandPorts()},
     .probes = {&kPeerMemoryLog},
     .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
