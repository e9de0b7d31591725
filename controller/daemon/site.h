// Site: the inventory the daemon serves and its role catalog, loaded and
// checked together (as deploy checks them). SiteWatcher reloads them when the
// file's content changes (and on SIGHUP); a bad edit keeps the last good
// site in service and says what is wrong.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "controller/catalog/role.h"
#include "inventory/model.h"

namespace clusterctl {

struct Site {
  std::shared_ptr<const Inventory> inventory;
  std::shared_ptr<const Catalog> catalog;
  std::string digest;  // sha256 of the inventory file
  int64_t loaded_at_ms = 0;
};

class SiteWatcher {
 public:
  explicit SiteWatcher(std::string path) : path_(std::move(path)) {}

  // Loads the file when its content differs from the current site's.
  // Returns true when a new site is in service; false when nothing changed
  // or the new content has problems (error() says which).
  bool Refresh(int64_t now_ms);
  std::shared_ptr<const Site> current() const;
  std::string error() const;  // "" when the file as it is now is in service
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Site> site_;
  std::string error_;
  std::string failed_digest_;  // a bad file is not reloaded until it changes again
};

}  // namespace clusterctl
