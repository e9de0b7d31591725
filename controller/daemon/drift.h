// DriftBook: what the daemon's last drift checks found, per host.
//
// A drift check is `deploy --verify` in check mode over every host: it
// changes nothing, and every step it would change is drift, with the
// agent's reason ("content differs (12 -> 13 lines)", "not running
// (inactive)"). The book keeps the latest check per host in memory for the
// API, the metrics and the page; the state's hosts.drifted flag keeps
// whether a host drifted across restarts (and for `clusterctl status`).
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/engine/deploy_events.h"

namespace clusterctl {

struct HostDrift {
  int64_t checked_at_ms = 0;
  bool reached = true;  // false: the host could not be checked (its error is in `error`)
  std::string error;
  std::vector<std::pair<std::string, std::vector<std::string>>> steps;  // step, why
  bool drifted() const { return !steps.empty(); }
};

class DriftBook {
 public:
  // Records a drift check's reports (check mode with verify).
  void Record(const std::vector<HostReport>& reports, int64_t now_ms);
  void Clear(const std::string& host, int64_t now_ms);
  std::map<std::string, HostDrift> Snapshot() const;
  std::vector<std::string> Drifted() const;
  int64_t last_check_ms() const;
  int64_t checks() const;
  static nlohmann::json ToJson(const HostDrift& drift);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, HostDrift> hosts_;
  int64_t last_check_ms_ = 0;
  int64_t checks_ = 0;
};

}  // namespace clusterctl
