// Parsers of what nvidia-smi prints about MIG (Multi-Instance GPU): the
// GPU instance profiles a GPU offers (`nvidia-smi mig -lgip`), the GPU
// instances and compute instances that exist (`-lgi`, `-lci`) and the MIG
// devices CUDA and Slurm see (`nvidia-smi -L`). Pure functions, tested on
// real captures (tests/fixtures/captured/nvidia-smi-mig-*, nvidia-smi-L--*).
//
// Contract shared by all four: a table they do not recognise (no header, a
// row of the wrong shape, a number out of range, a profile name outside
// [0-9a-z.+]) is an error naming the line, never a partial answer; the
// names they return are safe in slurm.conf, gres.conf and an argv as they
// are. A table with a header and no rows is an empty answer.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl::facts {

// One row of `nvidia-smi mig -lgip`: a GPU instance profile of one GPU.
struct MigProfile {
  int gpu = 0;           // the GPU's index
  std::string name;      // "3g.40gb", "1g.10gb+me"
  int id = 0;            // the profile ID -cgi takes (9)
  int free = 0;          // instances that can still be made
  int total = 0;         // instances the GPU holds at most
};

// One row of `nvidia-smi mig -lgi`: a GPU instance.
struct MigGpuInstance {
  int gpu = 0;
  std::string profile;   // "3g.40gb"
  int profile_id = 0;
  int id = 0;            // the GPU instance ID
  int placement_start = 0;
  int placement_size = 0;
};

// One row of `nvidia-smi mig -lci`: a compute instance inside a GPU instance.
struct MigComputeInstance {
  int gpu = 0;
  int gpu_instance = 0;
  std::string name;      // "1g.10gb", or "1c.3g.40gb" for one of several sharing a GPU instance
  int profile_id = 0;
  int id = 0;
};

// A MIG device line of `nvidia-smi -L` (`  MIG 3g.40gb     Device  0: (UUID: MIG-...)`).
struct MigDevice {
  std::string name;      // "3g.40gb", "1c.3g.71gb"
  int device = 0;        // its index under its GPU
  std::string uuid;      // "MIG-..." (R470+) or "MIG-GPU-.../GI/CI" (R450)
};

// A GPU line of `nvidia-smi -L` and the MIG devices listed under it.
struct ListedGpu {
  int index = 0;
  std::string model;     // "NVIDIA H100 80GB HBM3"
  std::string uuid;      // "GPU-..."
  std::vector<MigDevice> mig_devices;
};

Result<std::vector<MigProfile>> ParseMigProfiles(std::string_view text);
Result<std::vector<MigGpuInstance>> ParseMigGpuInstances(std::string_view text);
Result<std::vector<MigComputeInstance>> ParseMigComputeInstances(std::string_view text);
Result<std::vector<ListedGpu>> ParseNvidiaSmiList(std::string_view text);

// The driver's /proc/driver/nvidia-caps/mig-minors (NVIDIA's MIG User Guide,
// "Device Nodes and Capabilities"): "config 1", "gpu0/gi2/access 21",
// "gpu0/gi2/ci0/access 22", ... each the minor of /dev/nvidia-caps/nvidia-capN.
// Capability name -> minor; a line of another shape is an error naming it.
Result<std::map<std::string, int>> ParseMigMinors(std::string_view text);

// The GPU instance profile of a MIG device or compute instance name:
// "1c.3g.71gb" -> "3g.71gb", "3g.40gb" -> "3g.40gb".
std::string GpuInstanceProfileOf(std::string_view name);

// "" when `name` is a MIG profile name as nvidia-smi prints them (an
// optional "Nc." compute prefix, "Ng.", a memory size "NNgb", optional
// "+me"-style suffixes: 3g.40gb, 1g.10gb+me, 1c.3g.71gb), else why not.
std::string MigProfileNameRefusal(std::string_view name);

}  // namespace clusterctl::facts
