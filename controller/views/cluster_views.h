// Cluster-wide derived views: what templates see as `cluster.<name>`,
// computed once per run from the inventory and every host's stored facts
// (cluster.slurm: hardware classes and partitions for slurm.conf).
//
// The planner builds every registered view and knows none by name: a role
// family that needs a view of the whole cluster (NFS exports, monitoring
// targets) writes its builder in its own file and adds one entry to the
// list in cluster_views.cc. A builder is pure; an error it returns is a
// planning error (exit 2, nothing changed). A view may give each host its
// own part: an object under `per_host` (by host name) becomes `host.<name>`
// for that host alone instead of a part of `cluster.<name>` (cluster.nfs:
// the server's exports, a client's mounts).
//
// A view's error is the inventory's (exit 2): a node's facts never make one.
// Where one node's facts cannot be used by a view (a node whose memory is
// less than its reserve), the view leaves that node out of what it builds
// and names it under `host_problems` (host -> why, naming the fact): the
// planner fails that host alone, and the other hosts get a view without it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "common/status.h"
#include "inventory/model.h"

namespace clusterctl {

// What a view may read beyond the inventory and the facts, given by its
// caller (the planner), so views name no other part of the controller.
struct ViewInputs {
  // Every validate check variable at its default (catalog/check_variables).
  nlohmann::json check_defaults = nlohmann::json::object();
  // The checks a selection (--checks' syntax) names that a node judges
  // alone, in report order (validate/check_selection.h); null: none known.
  std::function<Result<std::vector<std::string>>(const std::vector<std::string>& names)> node_checks;
};

// The key of a view's object under which it names the hosts it left out.
inline constexpr const char* kViewHostProblems = "host_problems";

struct ClusterView {
  std::string name;  // the key under `cluster`
  std::function<Result<nlohmann::json>(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts,
                                       const ViewInputs& inputs)>
      build;
};

const std::vector<ClusterView>& ClusterViews();

// Builds every view without facts (what the inventory alone decides, such
// as partitions) and reports what fails, at the inventory file.
void CheckClusterViews(const Inventory& inventory, Diagnostics& diagnostics, const ViewInputs& inputs = {});

}  // namespace clusterctl
