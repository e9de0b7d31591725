#include "controller/views/cluster_views.h"

#include "controller/views/bmc_view.h"
#include "controller/views/directory_view.h"
#include "controller/views/health_view.h"
#include "controller/views/logs_view.h"
#include "controller/views/nfs_view.h"
#include "controller/views/slurm_view.h"

namespace clusterctl {

const std::vector<ClusterView>& ClusterViews() {
  static const std::vector<ClusterView> views = {
      {"slurm", [](const Inventory& i, const auto& f, const ViewInputs&) { return BuildSlurmView(i, f); }},
      {"nfs", [](const Inventory& i, const auto& f, const ViewInputs&) { return BuildNfsView(i, f); }},
      {"health", BuildHealthView},
      {"directory", BuildDirectoryView},
      {"logs", BuildLogsView},
      {"bmc", BuildBmcView},
  };
  return views;
}

void CheckClusterViews(const Inventory& inventory, Diagnostics& diagnostics, const ViewInputs& inputs) {
  const std::map<std::string, nlohmann::json> no_facts;
  for (const ClusterView& view : ClusterViews()) {
    auto built = view.build(inventory, no_facts, inputs);
    if (!built.ok()) diagnostics.Error({inventory.source_file, 0, 0}, "cluster." + view.name + ": " + built.status().message());
  }
}

}  // namespace clusterctl
