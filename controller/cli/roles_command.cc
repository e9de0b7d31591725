#include "controller/cli/roles_command.h"
#include <CLI/CLI.hpp>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/catalog/variable_docs.h"
#include "controller/cli/exit_codes.h"
#include "controller/output/table.h"
#include "controller/run/checked_inventory.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

// The catalog (and the inventory, when one is named), or nullopt after
// printing why.
struct Loaded {
  std::optional<Inventory> inventory;
  std::optional<Catalog> catalog;
};

std::optional<Loaded> Load(const RolesOptions& options, const Services& services) {
  Loaded loaded;
  if (!options.inventory_path.empty()) {
    loaded.inventory = LoadInventoryOrReport(options.inventory_path, services, false);
    if (!loaded.inventory) return std::nullopt;
  }
  Diagnostics diagnostics;
  const Catalog::Sources sources = Catalog::DefaultSources(loaded.inventory ? loaded.inventory->base_dir : "");
  WarnWithoutBuiltInRoles(sources, diagnostics);
  loaded.catalog = Catalog::Load(sources, diagnostics);
  LogDiagnostics(diagnostics, *services.log);
  if (!loaded.catalog) return std::nullopt;
  return loaded;
}

// Hosts whose groups give them the role (its `when`, decided from facts at
// planning, may leave some out).
std::vector<std::string> HostsOf(const Role& role, const Loaded& loaded) {
  std::vector<std::string> hosts;
  for (const Host& host : loaded.inventory->hosts) {
    for (const Role* r : loaded.catalog->RolesFor(host, *loaded.inventory, {})) {
      if (r == &role) hosts.push_back(host.name);
    }
  }
  return hosts;
}

std::string AppliesTo(const Role& role) {
  return role.applies_to.empty() ? "(dependency)" : Join(role.applies_to, ",");
}

nlohmann::json RoleJson(const Role& role, const Loaded& loaded, bool with_variables) {
  nlohmann::json out = {{"name", role.name},           {"description", role.description},
                        {"file", role.file},           {"applies_to", role.applies_to},
                        {"depends_on", role.depends_on}, {"tags", role.tags},
                        {"when", role.when ? nlohmann::json(role.when->text()) : nlohmann::json(nullptr)}};
  if (loaded.inventory) out["hosts"] = HostsOf(role, loaded);
  if (!with_variables) return out;
  out["variables"] = nlohmann::json::array();
  for (const auto& [name, spec] : role.variables) {
    for (const VariableRow& row : VariableRows(spec)) {
      const bool field = row.name != name;  // slurm_partitions[].group: no default of its own
      out["variables"].push_back({{"name", row.name}, {"type", row.type},
                                  {"default", field ? nlohmann::json(nullptr) : spec.default_value},
                                  {"description", row.description}, {"declared_by", spec.declared_by}});
    }
  }
  return out;
}

}  // namespace

int RunRolesList(const RolesOptions& options, const Services& services) {
  auto loaded = Load(options, services);
  if (!loaded) return kExitUsage;
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [name, role] : loaded->catalog->roles()) out.push_back(RoleJson(role, *loaded, false));
    *services.out << JsonText(out, 2) << "\n";
    return kExitOk;
  }
  std::vector<std::string> headers = {"ROLE", "APPLIES TO"};
  if (loaded->inventory) headers.push_back("HOSTS");
  headers.push_back("DESCRIPTION");
  TextTable table(headers);
  for (const auto& [name, role] : loaded->catalog->roles()) {
    std::vector<std::string> row = {name, AppliesTo(role) + (role.when ? " (when)" : "")};
    if (loaded->inventory) {
      const auto hosts = HostsOf(role, *loaded);
      row.push_back(hosts.empty() ? "-" : CollapseHostList(hosts));
    }
    row.push_back(role.description);
    table.AddRow(std::move(row));
  }
  table.Print(*services.out);
  *services.out << "\n'clusterctl roles show ROLE' shows a role's variables; (when): a condition on facts or variables "
                   "decides, at planning, which of those hosts run it\n";
  return kExitOk;
}

int RunRolesShow(const RolesOptions& options, const Services& services) {
  auto loaded = Load(options, services);
  if (!loaded) return kExitUsage;
  const Role* role = loaded->catalog->Find(options.name);
  if (!role) {
    std::vector<std::string> names;
    for (const auto& [name, r] : loaded->catalog->roles()) names.push_back(name);
    services.log->Error("clusterctl roles show: unknown role '" + options.name + "'" + DidYouMean(options.name, names) +
                        "; roles: " + Join(names, ", "));
    return kExitUsage;
  }
  if (options.json) {
    *services.out << JsonText(RoleJson(*role, *loaded, true), 2) << "\n";
    return kExitOk;
  }
  std::ostream& out = *services.out;
  out << role->name << ": " << role->description << "\n  file: " << role->file << " (format " << role->format_version
      << ")\n  applies to: " << AppliesTo(*role) << "\n";
  if (role->when) out << "  when: " << role->when->text() << "\n";
  if (!role->depends_on.empty()) out << "  depends on: " << Join(role->depends_on, ", ") << "\n";
  if (!role->tags.empty()) out << "  tags: " << Join(role->tags, ", ") << "\n";
  if (loaded->inventory) {
    const auto hosts = HostsOf(*role, *loaded);
    out << "  hosts: " << (hosts.empty() ? "none" : CollapseHostList(hosts)) << (role->when ? " (before its when)" : "") << "\n";
  }
  if (role->variables.empty()) return kExitOk;
  out << "\nVariables\n";
  TextTable table({"NAME", "TYPE", "DEFAULT", "DESCRIPTION"});
  for (const auto& [name, spec] : role->variables) {
    for (const VariableRow& row : VariableRows(spec)) {
      const std::string owner = spec.declared_by != role->name && row.name == name ? " (" + spec.declared_by + "'s)" : "";
      table.AddRow({row.name, row.type, row.default_value, row.description + owner});
    }
  }
  table.Print(out, "  ");
  return kExitOk;
}

void AddRolesCommand(CLI::App& app, CommandValues& v) {
  RolesOptions& o = v.Keep<RolesOptions>();
  CLI::App* roles = app.add_subcommand("roles", "the role catalog: each role, its hosts, its variables (alone: list)");
  // Plain `roles [INVENTORY] [--json]` is `roles list` (docs/cli.md).
  AddInventoryArgument(roles, v, o.inventory_path, nullptr, false, true);
  roles->add_flag("--json", o.json, "JSON output (as roles list --json)");
  roles->callback([&v, &o, roles] {
    if (roles->get_subcommands().empty()) v.exit_code = RunRolesList(o, v.services);
  });
  CLI::App* list = roles->add_subcommand("list", "every role: what it applies to, its hosts, what it does");
  AddInventoryArgument(list, v, o.inventory_path, nullptr, false, true);
  list->add_flag("--json", o.json, "JSON output");
  list->callback([&v, &o] { v.exit_code = RunRolesList(o, v.services); });
  CLI::App* show = roles->add_subcommand("show", "one role: what it does, its hosts, every variable it reads");
  show->add_option("ROLE", o.name, "role name")->required();
  AddInventoryArgument(show, v, o.inventory_path, nullptr, false, true);
  show->add_flag("--json", o.json, "JSON output");
  show->callback([&v, &o] { v.exit_code = RunRolesShow(o, v.services); });
}

}  // namespace clusterctl
