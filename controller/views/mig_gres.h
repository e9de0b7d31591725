// The Slurm GRES of a node whose GPUs the nvidia-mig role splits by a MIG
// layout (the host variable nvidia_mig_layout): one typed GRES per MIG
// profile, counted over all its GPUs (`gpu:3g.40gb:16` for 8 GPUs of
// [3g.40gb, 3g.40gb]), so `srun --gres=gpu:3g.40gb:1` gets one MIG device.
// Slurm's AutoDetect=nvml finds the devices (their /dev/nvidia-caps files)
// and names them nvidia_h100_80gb_hbm3_3g.40gb, of which the profile is a
// substring, as a configured type may be; without NVML the node's own
// kMigGresFile names them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace clusterctl {

// Profile -> instances on the node's `gpus` GPUs. The GPU model decides an
// all-PROFILE count: the known model whose full-GPU profile's memory
// ("80gb" of 7g.80gb) the facts' GPU model names, else the one model that
// offers the layout. InvalidArgument (the node's problem, said whole) when
// no known model or more than one with different counts fit.
// Where the nvidia-mig role writes gres.conf's lines of a MIG node whose
// Slurm has no NVML (MultipleFiles of each MIG device), and which that
// node's gres.conf includes.
inline constexpr const char* kMigGresFile = "/etc/slurm/gres-mig.conf";

Result<std::map<std::string, int64_t>> MigGresCounts(const nlohmann::json& layout, const nlohmann::json& facts,
                                                     int64_t gpus);

}  // namespace clusterctl
