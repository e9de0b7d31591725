#include "controller/engine/cluster_views.h"

#include "controller/engine/slurm_view.h"

namespace clusterctl {

const std::vector<ClusterView>& ClusterViews() {
  static const std::vector<ClusterView> views = {
      {"slurm", BuildSlurmView},
  };
  return views;
}

}  // namespace clusterctl
