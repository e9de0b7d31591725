#include "controller/cli/status_command.h"

#include <map>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/cli/exit_codes.h"
#include "controller/output/table.h"
#include "inventory/hostlist.h"

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

int RunStatus(const std::string& inventory_path, const GlobalOptions& options, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(inventory_path, services, false);
  if (!inventory) return kExitUsage;
  StatePaths paths = StatePathsFor(*inventory, options);
  std::vector<HostRecord> records;
  std::map<std::string, std::vector<StoredValidation>> validations;
  bool has_state = false;
  auto store = StateStore::OpenForReading(paths, *services.filesystem);
  if (store.ok()) {
    auto hosts = (*store)->ListHosts();
    if (!hosts.ok()) {
      *services.err << "clusterctl: reading " << paths.database() << ": " << hosts.status().message() << "\n";
      return kExitFailed;
    }
    records = std::move(hosts).value();
    auto latest = (*store)->LatestValidationPerNode();
    if (!latest.ok()) {
      *services.err << "clusterctl: reading " << paths.database() << ": " << latest.status().message() << "\n";
      return kExitFailed;
    }
    validations = std::move(latest).value();
    has_state = true;
  } else if (store.status().code() != Status::Code::kNotFound) {
    *services.err << "clusterctl: " << store.status().message() << "\n";
    return kExitFailed;
  }

  std::vector<HostStatusRow> rows = BuildStatusRows(*inventory, records);
  for (HostStatusRow& row : rows) {
    if (auto it = validations.find(row.name); it != validations.end()) row.validation = SummarizeValidation(it->second);
  }
  std::map<std::string, std::vector<std::string>> by_state;
  for (const HostStatusRow& row : rows) by_state[row.state].push_back(row.name);

  std::ostream& out = *services.out;
  if (options.json) {
    nlohmann::json hosts = nlohmann::json::array();
    for (const HostStatusRow& row : rows) {
      hosts.push_back({{"name", row.name},
                       {"address", row.address},
                       {"groups", row.groups},
                       {"state", row.state},
                       {"since", row.since ? nlohmann::json(*row.since) : nlohmann::json(nullptr)},
                       {"detail", row.detail},
                       {"last_validation", row.validation.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.validation)}});
    }
    nlohmann::json summary = nlohmann::json::object();
    for (const auto& [state, names] : by_state) summary[state] = names.size();
    out << JsonText(nlohmann::json{{"cluster", inventory->cluster_name},
                                   {"state_dir", paths.dir},
                                   {"has_state", has_state},
                                   {"hosts", hosts},
                                   {"summary", summary}},
                    2)
        << "\n";
    return kExitOk;
  }
  out << "Cluster " << inventory->cluster_name << ", state " << paths.dir
      << (has_state ? "" : " (no state yet: nothing deployed)") << "\n\n";
  TextTable table({"HOST", "ADDRESS", "STATE", "SINCE", "GROUPS", "VALIDATION", "DETAIL"});
  for (const HostStatusRow& row : rows) {
    table.AddRow({row.name, row.address, row.state, row.since ? FormatUtc(*row.since) : "-",
                  row.groups.empty() ? "-" : Join(row.groups, ","), row.validation.empty() ? "-" : row.validation,
                  row.detail});
  }
  table.Print(out);
  out << "\n";
  for (const auto& [state, names] : by_state) {
    out << names.size() << " " << state << ": " << CollapseHostList(names) << "\n";
  }
  return kExitOk;
}

}  // namespace clusterctl
