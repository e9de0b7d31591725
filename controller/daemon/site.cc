#include "controller/daemon/site.h"

#include "common/sha256.h"
#include "controller/catalog/variable_check.h"
#include "controller/engine/planner.h"
#include "controller/run/checked_inventory.h"
#include "controller/views/cluster_views.h"
#include "inventory/loader.h"

namespace clusterctl {

bool SiteWatcher::Refresh(int64_t now_ms) {
  auto digest = Sha256File(path_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!digest.ok()) {
    error_ = "cannot read " + path_ + ": " + digest.status().message();
    return false;
  }
  if ((site_ && site_->digest == *digest) || *digest == failed_digest_) return false;
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(path_, diagnostics);
  std::optional<Catalog> catalog;
  if (inventory) catalog = LoadCatalogFor(*inventory, {}, diagnostics);
  if (catalog) CheckClusterViews(*inventory, diagnostics, ControllerViewInputs());
  if (diagnostics.has_errors()) {
    error_ = diagnostics.ToString();
    failed_digest_ = *digest;
    return false;
  }
  auto site = std::make_shared<Site>();
  site->inventory = std::make_shared<const Inventory>(std::move(*inventory));
  site->catalog = std::make_shared<const Catalog>(std::move(*catalog));
  site->digest = *digest;
  site->loaded_at_ms = now_ms;
  site_ = std::move(site);
  error_.clear();
  failed_digest_.clear();
  return true;
}

std::shared_ptr<const Site> SiteWatcher::current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return site_;
}

std::string SiteWatcher::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

}  // namespace clusterctl
