// What a node's nvidia-smi shows of MIG, GPU by GPU, and how that differs
// from a MIG layout (nvidia_mig_layout.h): pure functions over nvidia-smi's
// outputs, shared by the nvidia_mig kind (which then changes the GPUs) and
// validate's gpu.mig (which only judges them).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "agent/facts/nvidia_mig.h"
#include "agent/resources/nvidia_mig_layout.h"
#include "common/status.h"

namespace clusterctl::agent::nvidia_mig {

// One GPU as MIG sees it.
struct GpuState {
  int index = 0;
  bool enabled = false;
  std::vector<std::string> instances;  // its GPU instances' profiles, sorted
  int without_compute = 0;             // GPU instances with no compute instance
  std::vector<facts::MigProfile> offer;  // its -lgip rows (empty while MIG is off)
  std::vector<facts::MigGpuInstance> gpu_instances;
  std::vector<facts::MigComputeInstance> compute_instances;
};

// `nvidia-smi --query-gpu=index,mig.mode.current --format=csv,noheader`
// ("0, Enabled"): index -> MIG on; a GPU without MIG ([N/A]) is an error.
Result<std::map<int, bool>> ParseMigModes(std::string_view text);

// The GPUs from the mode query and `nvidia-smi mig -lgip`, `-lgi`, `-lci`
// (each "" where nothing exists or MIG is off on every GPU).
Result<std::vector<GpuState>> GpuStates(const std::map<int, bool>& modes, std::string_view lgip, std::string_view lgi,
                                        std::string_view lci);

// The profiles (with the IDs -cgi takes) `layout` needs on `gpu`, largest
// first, or why its -lgip does not offer them.
Result<std::vector<facts::MigProfile>> WantedOn(const Layout& layout, const GpuState& gpu);

// What differs on `gpu` ("GPU 0: instances 1g.10gb -> 3g.40gb, 3g.40gb"),
// "" when it holds the layout, or why the layout cannot be judged there.
Result<std::string> Difference(const Layout& layout, const GpuState& gpu);

}  // namespace clusterctl::agent::nvidia_mig
