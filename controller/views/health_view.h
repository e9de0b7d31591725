// The Slurm health check's view (docs/health.md): on each Slurm node, what
// the slurm-health role installs (templates see it as `host.health`):
//   config:  the text of /etc/clusterctl/health.json (health/health_config.h,
//            version 1): the node's name, the checks (slurm_health_checks,
//            with --checks' syntax: names, prefixes, "!name"), every validate
//            variable of the node with its default, the CPUs and memory its
//            facts had (node.resources' expectations, unless the inventory
//            sets them) and the node exporter's textfile;
//   program: the copy source of the controller's clusterctl-health
//            ("node-program:clusterctl-health", engine/kinds/copy_kind.cc).
// Slurm nodes are slurm_node_group's hosts (default: compute); none while
// slurm_health_check is false. Pure but for the inputs its caller gives.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/views/cluster_views.h"
#include "inventory/model.h"

namespace clusterctl {

// The checks a health run judges when the inventory names none: the node
// checks that find a broken node without a controller's view.
const std::vector<std::string>& DefaultHealthChecks();

Result<nlohmann::json> BuildHealthView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts,
                                       const ViewInputs& inputs);

}  // namespace clusterctl
