// The defaults of the bandwidth checks' floors and of gpu.nvlink's links,
// from published reference figures; a check's own variable overrides each
// (declared in its spec's `.variables`, docs/validation.md).
#pragma once

#include <optional>
#include <string>

namespace clusterctl {

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
