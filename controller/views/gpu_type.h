// The GPU type Slurm's typed GRES name a node's GPUs by (`Gres=gpu:h100:8`,
// `srun --gres=gpu:h100:1`), derived from the model names in the facts.
//
// A type is the model's short code as users say it: "h100", "a100", "l40s",
// "gh200", "a6000". It is always [a-z0-9_] and starts with a letter, so it
// can never break out of a slurm.conf or gres.conf line, whatever a node's
// facts say. Slurm's AutoDetect=nvml accepts a configured type that is a
// substring of the name NVML reports, lower-cased with '_' for spaces
// ("nvidia_h100_80gb_hbm3"): every type made here is one, for the names
// NVIDIA's tools print and the PCI names the agent's device table gives.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace clusterctl {

// The type of one GPU model name: nvidia-smi's ("NVIDIA H100 80GB HBM3",
// "Tesla V100-SXM2-16GB", "NVIDIA A100-SXM4-80GB"), the driver's (the same)
// or the agent's PCI table's ("H100-SXM5-80GB", "RTX-A6000").
//   - The first word of letters then digits that is not a form factor or
//     memory word (sxm5, hbm3, pcie4, gddr6, gen5): "h100", "a10g", "gb200".
//   - Else the name's words after a leading "NVIDIA", joined by '_' and cut
//     to 32 characters at a word: "NVIDIA GeForce RTX 4090" ->
//     "geforce_rtx_4090".
//   - "" when neither starts with a letter ("NVIDIA 2b85", the agent's name
//     for a device its table does not know; "", "???"): no type.
std::string GpuTypeOf(std::string_view model);

// The one type of a node's GPUs, from its facts: the PCI models
// (facts.pci.gpus[].model, known before any driver is installed, so the
// type does not change when the driver loads); when none of those can be
// named, the models the loaded driver reports (facts.nvidia.gpus[].model).
// "" (untyped GRES) without GPUs, when a GPU cannot be named, or when the
// node's GPUs are of more than one type: which /dev/nvidiaN is which model
// is the driver's to say, so such a node's GPUs stay one untyped pool.
std::string NodeGpuType(const nlohmann::json& facts);

}  // namespace clusterctl
