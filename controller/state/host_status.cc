#include "controller/state/host_status.h"

#include <map>

#include "common/strings.h"

namespace clusterctl {
namespace {

// A host in the inventory, by its record's status.
HostState StateInInventory(HostStatus status) {
  switch (status) {
    case HostStatus::kOk: return HostState::kOk;
    case HostStatus::kFailed: return HostState::kFailed;
    case HostStatus::kUnreachable: return HostState::kUnreachable;
    // In the inventory again: a removed host that was re-added is due a deploy.
    case HostStatus::kNever:
    case HostStatus::kRemoved: return HostState::kNeverDeployed;
  }
  return HostState::kNeverDeployed;
}

}  // namespace

const char* ToString(HostState state) {
  switch (state) {
    case HostState::kNeverDeployed: return "never deployed";
    case HostState::kOk: return "ok";
    case HostState::kFailed: return "failed";
    case HostState::kUnreachable: return "unreachable";
    case HostState::kGoneFromInventory: return "gone from inventory";
    case HostState::kRemoved: return "removed";
  }
  return "?";
}

std::vector<HostStatusRow> BuildStatusRows(const Inventory& inventory, const std::vector<HostRecord>& records) {
  std::map<std::string, const HostRecord*> by_name;
  for (const HostRecord& r : records) by_name[r.name] = &r;
  std::vector<HostStatusRow> rows;
  for (const Host& h : inventory.hosts) {
    HostStatusRow row{h.name, h.address, h.groups, HostState::kNeverDeployed, std::nullopt, "", ""};
    if (auto it = by_name.find(h.name); it != by_name.end()) {
      const HostRecord& r = *it->second;
      row.state = StateInInventory(r.status);
      row.since = r.last_status_at;
      if (r.drifted) row.detail = "drift detected";
      if (r.last_error && r.status != HostStatus::kOk) row.detail = *r.last_error;
      // The last attempt to connect failed, whatever the command (a plan too).
      if (r.unreachable_since) {
        row.state = HostState::kUnreachable;
        row.since = r.unreachable_since;
        row.detail = r.unreachable_error.value_or("");
      }
      by_name.erase(it);
    }
    rows.push_back(std::move(row));
  }
  for (const auto& [name, record] : by_name) {
    const bool removed = record->status == HostStatus::kRemoved;
    HostStatusRow row{name, record->address.value_or("-"), {}, HostState::kGoneFromInventory, std::nullopt, "", ""};
    if (removed) row.state = HostState::kRemoved;
    row.since = removed ? record->removed_at : record->last_status_at;
    row.detail = removed ? "removed from the cluster" : "in the state but not in the inventory; the next deploy removes it";
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string SummarizeValidation(const std::vector<StoredValidation>& results) {
  if (results.empty()) return "";
  std::vector<std::string> failed;
  for (const StoredValidation& v : results) {
    if (v.result == CheckOutcome::kFail) failed.push_back(v.check);
  }
  std::string run = " (run " + std::to_string(results.front().run_id) + ")";
  return failed.empty() ? "pass" + run : "fail: " + Join(failed, ", ") + run;
}

}  // namespace clusterctl
