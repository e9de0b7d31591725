// The `slurm` fact: what the node's installed Slurm can do that its
// configuration depends on, and the `nvidia.nvml_library` fact its GPU
// detection needs.
//
//   slurm: {plugin_dir: the first of Slurm's plugin directories that exists
//           (Debian and Ubuntu /usr/lib/<triplet>/slurm-wlm, RPM
//           /usr/lib64/slurm, /usr/lib/slurm, a source build's
//           /usr/local/lib/slurm), null without Slurm;
//           gpu_nvml: that directory holds gpu_nvml.so, the plugin behind
//           gres.conf's AutoDetect=nvml (Debian 12's slurm-wlm-basic-plugins
//           ships only gpu_generic.so)}
//
// Only files under `root` are read.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

nlohmann::json ReadSlurmPlugins(const std::string& root);

// The path of NVIDIA's NVML library (libnvidia-ml.so.1), which Slurm's
// gpu_nvml plugin loads, in the library directories of Debian, Ubuntu (and
// Debian's own driver packages' nvidia/current) and RPM systems; null when
// none has it.
nlohmann::json FindNvmlLibrary(const std::string& root);

}  // namespace clusterctl::facts
