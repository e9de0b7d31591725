#include "controller/cli/status_command.h"

#include <CLI/CLI.hpp>
#include <map>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/cli/exit_codes.h"
#include "controller/output/table.h"
#include "inventory/hostlist.h"

namespace clusterctl {

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
      services.log->Error("clusterctl: reading " + paths.database() + ": " + hosts.status().message());
      return kExitFailed;
    }
    records = std::move(hosts).value();
    auto latest = (*store)->LatestValidationPerNode();
    if (!latest.ok()) {
      services.log->Error("clusterctl: reading " + paths.database() + ": " + latest.status().message());
      return kExitFailed;
    }
    validations = std::move(latest).value();
    has_state = true;
  } else if (store.status().code() != Status::Code::kNotFound) {
    services.log->Error("clusterctl: " + store.status().message());
    return kExitFailed;
  }

  std::vector<HostStatusRow> rows = BuildStatusRows(*inventory, records);
  for (HostStatusRow& row : rows) {
    if (auto it = validations.find(row.name); it != validations.end()) row.validation = SummarizeValidation(it->second);
  }
  std::map<std::string, std::vector<std::string>> by_state;
  for (const HostStatusRow& row : rows) by_state[ToString(row.state)].push_back(row.name);

  std::ostream& out = *services.out;
  if (options.json) {
    nlohmann::json hosts = nlohmann::json::array();
    for (const HostStatusRow& row : rows) {
      hosts.push_back({{"name", row.name},
                       {"address", row.address},
                       {"groups", row.groups},
                       {"state", ToString(row.state)},
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
    table.AddRow({row.name, row.address, ToString(row.state), row.since ? FormatUtc(*row.since) : "-",
                  row.groups.empty() ? "-" : Join(row.groups, ","), row.validation.empty() ? "-" : row.validation,
                  row.detail});
  }
  table.Print(out, "", options.output == "wide" ? 0 : StdoutColumns());
  out << "\n";
  for (const auto& [state, names] : by_state) {
    out << names.size() << " " << state << ": " << CollapseHostList(names) << "\n";
  }
  return kExitOk;
}

void AddStatusCommand(CLI::App& app, CommandValues& v) {
  std::string& inventory_path = v.Keep<std::string>();
  CLI::App* status = app.add_subcommand("status", "per-host state from the state store");
  AddInventoryArgument(status, v, inventory_path);
  status->add_flag("--json", v.options.json, "one JSON document");
  status->add_option("-o,--output", v.options.output,
                     "table: fits the terminal, long cells cut with an ellipsis; wide: every cell whole; json: as --json")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"table", "wide", "json"}))
      ->capture_default_str();
  AddStateOption(status, v);
  status->callback([&v, &inventory_path] {
    if (v.options.output == "json") v.options.json = true;
    v.exit_code = RunStatus(inventory_path, v.options, v.services);
  });
}

}  // namespace clusterctl
