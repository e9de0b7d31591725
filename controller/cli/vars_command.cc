#include "controller/cli/vars_command.h"

#include <CLI/CLI.hpp>

#include <set>
#include <utility>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/catalog/builtin_variables.h"
#include "controller/catalog/variable_docs.h"
#include "controller/cli/exit_codes.h"
#include "controller/output/table.h"
#include "controller/run/checked_inventory.h"

namespace clusterctl {
namespace {

// One place the inventory sets a variable, and the value written there.
struct Setting {
  std::string at;  // "site.yaml:12"
  nlohmann::json value;
};

// Where `inventory` sets `name`: the cluster's vars, each group's, each
// host's (a host pattern's once), in file order.
std::vector<Setting> SettingsOf(const Inventory& inventory, const std::string& name) {
  std::vector<Setting> settings;
  std::set<std::string> seen;
  auto add = [&](const nlohmann::json& vars, const std::map<std::string, SourceLocation>& locations) {
    auto at = locations.find(name);
    if (at == locations.end() || !vars.contains(name)) return;
    const std::string where = at->second.file + ":" + std::to_string(at->second.line);
    if (seen.insert(where).second) settings.push_back({where, vars[name]});
  };
  add(inventory.cluster_vars, inventory.cluster_var_locations);
  for (const Group& group : inventory.groups) add(group.vars, group.var_locations);
  for (const Host& host : inventory.hosts) add(host.vars, host.var_origins);
  return settings;
}

// The roles that read `name`: the one declaring it and those taking it `from:` it.
bool ReadBy(const Catalog& catalog, const std::string& role, const std::string& name) {
  if (role == "validate" || role == "deploy") {
    const VariableSpec* spec = catalog.FindVariable(name);
    return spec && spec->declared_by == role;
  }
  const Role* r = catalog.Find(role);
  return r && r->variables.count(name) != 0;
}

std::vector<const VariableSpec*> Chosen(const Catalog& catalog, const VarsOptions& options) {
  std::vector<const VariableSpec*> chosen;
  for (const auto& [name, spec] : catalog.variables()) {
    if (!options.name.empty() && name != options.name) continue;
    if (!options.role.empty() && !ReadBy(catalog, options.role, name)) continue;
    chosen.push_back(&spec);
  }
  return chosen;
}

std::string SettingsText(const std::vector<Setting>& settings) {
  std::vector<std::string> texts;
  for (const Setting& s : settings) texts.push_back(s.at + " (" + Printable(JsonText(s.value), 30) + ")");
  return texts.empty() ? "-" : Join(texts, ", ");
}

nlohmann::json VariableJson(const VariableSpec& spec, const std::optional<Inventory>& inventory) {
  nlohmann::json out = {{"name", spec.name},
                        {"type", DescribeType(spec)},
                        {"default", spec.default_value},
                        {"description", spec.description},
                        {"declared_by", spec.declared_by}};
  if (!inventory) return out;
  out["set_at"] = nlohmann::json::array();
  for (const Setting& s : SettingsOf(*inventory, spec.name)) out["set_at"].push_back({{"at", s.at}, {"value", s.value}});
  return out;
}

// A usage error naming what is known, or "" when the name and role exist.
std::string UnknownName(const Catalog& catalog, const VarsOptions& options) {
  if (!options.role.empty() && options.role != "validate" && options.role != "deploy" && !catalog.Find(options.role)) {
    std::vector<std::string> roles;
    for (const auto& [name, role] : catalog.roles()) roles.push_back(name);
    return "unknown role '" + Printable(options.role, 40) + "'" + DidYouMean(options.role, roles) +
           " (roles: clusterctl roles; validate's: --role validate; the deploy's own: --role deploy)";
  }
  if (options.name.empty() || catalog.FindVariable(options.name)) return "";
  std::vector<std::string> names;
  for (const auto& [name, spec] : catalog.variables()) names.push_back(name);
  return "unknown variable '" + Printable(options.name, 60) + "'" + DidYouMean(options.name, names) +
         " ('clusterctl vars' lists them all)";
}

void PrintOne(const VariableSpec& spec, const std::optional<Inventory>& inventory, std::ostream& out) {
  out << spec.name << ": " << spec.description << "\n  type: " << DescribeType(spec)
      << "\n  default: " << (DescribeDefault(spec).empty() ? "none" : DescribeDefault(spec))
      << "\n  declared by: " << DeclaredByText(spec) << "\n";
  for (const VariableRow& row : VariableRows(spec)) {
    if (row.name != spec.name) out << "  field " << row.name << ": " << row.type << ": " << row.description << "\n";
  }
  if (inventory) out << "  set in the inventory: " << SettingsText(SettingsOf(*inventory, spec.name)) << "\n";
}

}  // namespace

int RunVars(const VarsOptions& options, const Services& services) {
  std::optional<Inventory> inventory;
  if (!options.inventory_path.empty()) {
    inventory = LoadInventoryOrReport(options.inventory_path, services, false);
    if (!inventory) return kExitUsage;
  }
  Diagnostics diagnostics;
  const Catalog::Sources sources = Catalog::DefaultSources(inventory ? inventory->base_dir : "");
  WarnWithoutBuiltInRoles(sources, diagnostics);
  std::optional<Catalog> catalog = Catalog::Load(sources, diagnostics);
  LogDiagnostics(diagnostics, *services.log);
  if (!catalog) return kExitUsage;
  if (std::string unknown = UnknownName(*catalog, options); !unknown.empty()) {
    services.log->Error("clusterctl vars: " + unknown);
    return kExitUsage;
  }
  const std::vector<const VariableSpec*> chosen = Chosen(*catalog, options);
  std::ostream& out = *services.out;
  if (options.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const VariableSpec* spec : chosen) all.push_back(VariableJson(*spec, inventory));
    out << JsonText(all, 2) << "\n";
    return kExitOk;
  }
  if (!options.name.empty()) {
    for (const VariableSpec* spec : chosen) PrintOne(*spec, inventory, out);
    return kExitOk;
  }
  std::vector<std::string> headers = {"NAME", "TYPE", "DEFAULT", "DECLARED BY"};
  if (inventory) headers.push_back("SET IN THE INVENTORY");
  TextTable table(headers);
  for (const VariableSpec* spec : chosen) {
    std::vector<std::string> row = {spec->name, DescribeType(*spec), DescribeDefault(*spec), spec->declared_by};
    if (inventory) row.push_back(SettingsText(SettingsOf(*inventory, spec->name)));
    table.AddRow(std::move(row));
  }
  table.Print(out);
  out << "\n'clusterctl vars NAME' shows one variable with its description\n";
  return kExitOk;
}

void AddVarsCommand(CLI::App& app, CommandValues& v) {
  VarsOptions& o = v.Keep<VarsOptions>();
  CLI::App* vars = app.add_subcommand("vars", "the variables an inventory may set: type, default, description, where set");
  vars->add_option("NAME", o.name, "one variable (default: all)");
  AddInventoryArgument(vars, v, o.inventory_path, nullptr, false, true);
  vars->add_option("--role", o.role, "only the variables this role reads ('validate': the checks'; 'deploy': the deploy's own)")->type_name("ROLE");
  vars->add_flag("--json", o.json, "JSON output: a list of variables");
  vars->callback([&v, &o] {
    // `vars site.yaml`: an inventory, not a variable name (no variable's name has a dot).
    if (EndsWith(o.name, ".yaml") || EndsWith(o.name, ".yml")) o.inventory_path = std::exchange(o.name, "");
    v.exit_code = RunVars(o, v.services);
  });
}

}  // namespace clusterctl
