// The Slurm view of the cluster (`cluster.slurm` in templates), computed
// from the inventory and the stored facts of every node, so slurm.conf and
// gres.conf render to the same bytes on every node:
//
//   nodes:      classes of Slurm nodes with identical hardware, names
//               collapsed (node[02-64]): cpus, sockets, cores_per_socket,
//               threads_per_core, real_memory (MiB, below what was detected),
//               gpus, gpu_type (h100: gpu_type.h; null untyped), gres
//               (gpu:h100:8), gpu_autodetect (gres.conf AutoDetect=nvml: the
//               facts show Slurm's gpu_nvml plugin, NVML and a loaded driver,
//               and slurm_gpu_autodetect is not `never`), gpu_files
//               (/dev/nvidia[0-7]); nodes not yet known by their facts are
//               left out (listed in `unknown`). Nodes of different GPU types
//               are different classes.
//   partitions: from the cluster variable slurm_partitions (name, group,
//               default, max_time, options), with their nodes collapsed.
//   accounting_tres: slurm.conf's AccountingStorageTRES, "gres/gpu" and
//               "gres/gpu:TYPE" per GPU type of the nodes with facts
//               (gres/gpu,gres/gpu:h100,gres/gpu:l40s), sorted by type.
//   node_names: every Slurm node with facts, collapsed.
//   host_problems: a node whose facts leave it no memory for jobs after
//               its reserve, with why; it is in `unknown` (the planner
//               fails it alone: cluster_views.h).
//
// Slurm nodes are the hosts of the group named by slurm_node_group
// (default: compute). Templates cannot group, collapse ranges or do
// arithmetic; this is where that happens, as a pure function.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "inventory/model.h"

namespace clusterctl {

// MiB a node keeps for itself: the host variable slurm_memory_reserve_mib,
// or 2% of its memory with at least 512 MiB.
int64_t SlurmReservedMemoryMib(int64_t total_mib, const nlohmann::json& host_vars);

Result<nlohmann::json> BuildSlurmView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts);

}  // namespace clusterctl
