#include "controller/state/host_status.h"

#include <map>

#include "common/strings.h"

namespace clusterctl {

std::vector<HostStatusRow> BuildStatusRows(const Inventory& inventory, const std::vector<HostRecord>& records) {
  std::map<std::string, const HostRecord*> by_name;
  for (const HostRecord& r : records) by_name[r.name] = &r;
  std::vector<HostStatusRow> rows;
  for (const Host& h : inventory.hosts) {
    HostStatusRow row{h.name, h.address, h.groups, "never deployed", std::nullopt, "", ""};
    if (auto it = by_name.find(h.name); it != by_name.end()) {
      const HostRecord& r = *it->second;
      // In the inventory again: a removed host that was re-added is due a deploy.
      row.state = r.status == "removed" || r.status == "never" ? "never deployed" : r.status;
      row.since = r.last_status_at;
      if (r.drifted) row.detail = "drift detected";
      if (r.last_error && r.status != "ok") row.detail = *r.last_error;
      // The last attempt to connect failed, whatever the command (a plan too).
      if (r.unreachable_since) {
        row.state = "unreachable";
        row.since = r.unreachable_since;
        row.detail = r.unreachable_error.value_or("");
      }
      by_name.erase(it);
    }
    rows.push_back(std::move(row));
  }
  for (const auto& [name, record] : by_name) {
    HostStatusRow row{name, record->address.value_or("-"), {}, "", std::nullopt, "", ""};
    row.state = record->status == "removed" ? "removed" : "gone from inventory";
    row.since = record->status == "removed" ? record->removed_at : record->last_status_at;
    row.detail = record->status == "removed" ? "removed from the cluster"
                                             : "in the state but not in the inventory; the next deploy removes it";
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string SummarizeValidation(const std::vector<StoredValidation>& results) {
  if (results.empty()) return "";
  std::vector<std::string> failed;
  for (const StoredValidation& v : results) {
    if (v.result == "fail") failed.push_back(v.check);
  }
  std::string run = " (run " + std::to_string(results.front().run_id) + ")";
  return failed.empty() ? "pass" + run : "fail: " + Join(failed, ", ") + run;
}

}  // namespace clusterctl
