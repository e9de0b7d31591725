// The cross-node checks' thresholds (ib.write_bw, nccl.node/cluster,
// fabric.ipoib's ipoib_mtu), overridable in the inventory as variables
// (cluster, group or host), e.g.
//   groups: {dgx: {vars: {validate_nccl_busbw_min_gbps: 180}}}
// Documented in docs/validation.md. Every node check reads its own variables
// from NodeView::vars (declared in its spec's `.variables`); these fields
// leave too when those checks become specs (issue 48): then Thresholds,
// ReadThresholds and PrepareRun's reading of them go.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace clusterctl {

struct Thresholds {  // what is left: the cross-node checks' fields only
  std::optional<double> ib_write_bw_min_mbps;  // default: 88% of the port's line rate (EDR: 11,000 MB/s)
  long long ib_write_bw_message_bytes = 65536;
  std::optional<int> ipoib_mtu;              // the ipoib role's ipoib_mtu (0 there: the interface's own MTU)
  std::optional<double> nccl_busbw_min_gbps;   // default: by GPU model (node) or IB line rate (cluster)
  double nccl_small_message_max_us = 100;      // across nodes: thousands of us means TCP fallback
  std::string nccl_tests_dir = "/usr/local/bin";  // where all_reduce_perf is looked for (and PATH)
  std::string nccl_max_bytes = "1G";
};

// Reads a host's thresholds from its resolved variables. Every problem is
// returned, naming the variable and what it needs to be.
Result<Thresholds> ReadThresholds(const nlohmann::json& vars);

// The defaults the reference figures give.
// ib_write_bw: 88% of the line rate in MB/s (11,000 MB/s on one 100 Gb/s EDR port).
double DefaultIbWriteBwFloorMbps(double rate_gbps);
// NCCL all_reduce bus bandwidth within one node, by GPU model (nvidia-smi name).
double DefaultNodeBusbwFloorGbps(const std::string& gpu_name);
// NVLink links per GPU where the model fixes them (SXM parts: V100 6, A100
// 12, H100 and H200 18); nullopt for PCIe/NVL cards and unknown models.
std::optional<int> FixedNvlinksPerGpu(const std::string& gpu_name);
// Across nodes: 75% of one node's summed InfiniBand line rate, in GB/s.
double DefaultClusterBusbwFloorGbps(double node_ib_gbps);

}  // namespace clusterctl
