#include "controller/views/cluster_views.h"

#include "controller/views/nfs_view.h"
#include "controller/views/slurm_view.h"

namespace clusterctl {

const std::vector<ClusterView>& ClusterViews() {
  static const std::vector<ClusterView> views = {
      {"slurm", BuildSlurmView},
      {"nfs", BuildNfsView},
  };
  return views;
}

void CheckClusterViews(const Inventory& inventory, Diagnostics& diagnostics) {
  const std::map<std::string, nlohmann::json> no_facts;
  for (const ClusterView& view : ClusterViews()) {
    auto built = view.build(inventory, no_facts);
    if (!built.ok()) diagnostics.Error({inventory.source_file, 0, 0}, "cluster." + view.name + ": " + built.status().message());
  }
}

}  // namespace clusterctl
