#include "controller/cli/inventory_command.h"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "common/json_text.h"
#include "common/strings.h"
#include "common/yaml_doc.h"
#include "controller/cli/exit_codes.h"
#include "controller/engine/planner.h"
#include "controller/output/table.h"
#include "controller/run/checked_inventory.h"
#include "controller/validate/catalogue.h"
#include "controller/views/cluster_views.h"
#include "inventory/hostlist.h"
#include "inventory/ini_import.h"
#include "inventory/inventory_json.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

std::string InterfacesText(const Host& host) {
  std::vector<std::string> parts;
  for (const Interface& i : host.interfaces) {
    parts.push_back(i.name + "=" + i.address + (i.prefix_length >= 0 ? "/" + std::to_string(i.prefix_length) : ""));
  }
  return parts.empty() ? "-" : Join(parts, " ");
}

std::string ConnectionText(const ConnectionSettings& c) {
  std::string text = c.user + " port " + std::to_string(c.port);
  if (c.EffectiveBecome() == Become::kSudo) text += " sudo";
  if (c.jump_host) text += " via " + c.jump_host->ToString();
  if (c.host_key_policy == HostKeyPolicy::kStrict) text += " strict";
  return text;
}

void PrintGroups(const Inventory& inventory, std::ostream& out) {
  TextTable table({"GROUP", "HOSTS", "MEMBERS", "CHILDREN", "ROLES"});
  for (const Group& g : inventory.groups) {
    table.AddRow({g.name, std::to_string(g.members.size()), g.members.empty() ? "-" : CollapseHostList(g.members),
                  g.children.empty() ? "-" : Join(g.children, ","), g.roles.empty() ? "-" : Join(g.roles, ",")});
  }
  out << "\nGroups (" << inventory.groups.size() << ")\n";
  table.Print(out, "  ");
}

// Hosts sharing identical resolved variables are printed once, in range notation.
void PrintVariables(const Inventory& inventory, std::ostream& out) {
  std::map<std::string, std::vector<std::string>> by_vars;
  std::vector<std::string> order;
  for (const Host& h : inventory.hosts) {
    std::string key = JsonText(h.vars);
    if (!by_vars.count(key)) order.push_back(key);
    by_vars[key].push_back(h.name);
  }
  out << "\nVariables (resolved: cluster < group < host)\n";
  for (const std::string& key : order) {
    nlohmann::json vars = nlohmann::json::parse(key);
    out << "  " << CollapseHostList(by_vars[key]) << ":";
    if (vars.empty()) {
      out << " (none)\n";
      continue;
    }
    out << "\n";
    for (const auto& [name, value] : vars.items()) out << "    " << name << ": " << JsonText(value) << "\n";
  }
}

// The variables the roles declare (built-in, and roles/ beside the output),
// which an import may write. Empty, with a warning, when the roles do not load.
std::set<std::string> RoleVariables(const std::string& output_path, Logger& log) {
  const std::string dir = std::filesystem::path(output_path).parent_path().string();
  Diagnostics diagnostics;
  const Catalog::Sources sources = Catalog::DefaultSources(dir.empty() ? "." : dir);
  std::optional<Catalog> catalog = Catalog::Load(sources, diagnostics);
  std::set<std::string> names;
  if (!catalog || !sources.data_dir_found) {
    LogDiagnostics(diagnostics, log);
    log.Warning("the roles did not load: only the Ansible connection variables and DeepOps's table are imported");
    return names;
  }
  for (const auto& [role_name, role] : catalog->roles()) {
    for (const auto& [name, value] : role.vars.items()) names.insert(name);
  }
  return names;
}

// inventory check --json, for editors and CI: every problem with its place.
nlohmann::json CheckDocument(const std::string& path, const CheckedInventory& checked, const Diagnostics& diagnostics) {
  nlohmann::json problems = nlohmann::json::array();
  for (const Diagnostic& d : diagnostics.Sorted()) {
    problems.push_back({{"file", d.where.file},
                        {"line", d.where.line},
                        {"column", d.where.column},
                        {"severity", d.severity == Diagnostic::Severity::kError ? "error" : "warning"},
                        {"message", d.message}});
  }
  nlohmann::json out = {{"file", path}, {"ok", !diagnostics.has_errors()}, {"problems", problems}};
  if (checked.inventory && !diagnostics.has_errors()) {
    out["cluster"] = checked.inventory->cluster_name;
    out["hosts"] = checked.inventory->hosts.size();
    out["groups"] = checked.inventory->groups.size();
  }
  return out;
}

}  // namespace

int RunInventoryCheck(const std::string& inventory_path, bool json, bool strict, const Services& services) {
  // The file, then against the roles (roles the inventory names, every
  // variable) and the cluster views: every problem in one pass.
  Diagnostics diagnostics;
  CheckedInventory checked = LoadCheckedInventory(inventory_path, {}, {}, diagnostics);
  if (checked.ok()) CheckClusterViews(*checked.inventory, diagnostics, ControllerViewInputs());
  if (strict) diagnostics = WarningsAsErrors(diagnostics);
  if (json) {
    *services.out << JsonText(CheckDocument(inventory_path, checked, diagnostics), 2) << "\n";
    return diagnostics.has_errors() ? kExitUsage : kExitOk;
  }
  LogDiagnostics(diagnostics, *services.log);  // warnings too (no built-in roles found, ...)
  if (diagnostics.has_errors()) {
    services.log->Error(inventory_path + ": " + std::to_string(diagnostics.error_count()) + " error" +
                        (diagnostics.error_count() == 1 ? "" : "s"));
    return kExitUsage;
  }
  const Inventory* inventory = &*checked.inventory;
  std::vector<std::string> summary;
  for (const std::string& name : WellKnownGroups()) {
    std::vector<std::string> members = inventory->MembersOf(name);
    if (!members.empty()) summary.push_back(name + ": " + CollapseHostList(members));
  }
  *services.out << inventory_path << ": ok: cluster '" << inventory->cluster_name << "', "
                << inventory->hosts.size() << " hosts, " << inventory->groups.size() << " groups";
  if (!summary.empty()) *services.out << " (" << Join(summary, "; ") << ")";
  *services.out << "\n";
  return kExitOk;
}

// The words a completion offers for --tags/--skip-tags, --roles/ROLE or
// --checks: the built-in roles and those beside the inventory, when one is
// named (and loads); silent on any problem, as a completion must be.
int PrintCompletionWords(const std::string& kind, const std::string& inventory_path, std::ostream& out) {
  if (kind == "checks") {
    for (const std::string& name : AllCheckNames()) out << name << "\n";
    for (const std::string& prefix : CheckPrefixes()) out << prefix << "\n";
    return kExitOk;
  }
  Diagnostics ignored;
  std::optional<Inventory> inventory;
  if (!inventory_path.empty()) inventory = LoadInventory(inventory_path, ignored);
  std::optional<Catalog> catalog = Catalog::Load(Catalog::DefaultSources(inventory ? inventory->base_dir : ""), ignored);
  if (!catalog) return kExitOk;
  std::set<std::string> words;
  for (const auto& [name, role] : catalog->roles()) {
    if (kind == "roles") words.insert(name);
    if (kind != "tags") continue;
    words.insert(role.tags.begin(), role.tags.end());
    for (const RoleStep& step : role.steps) words.insert(step.tags.begin(), step.tags.end());
  }
  for (const std::string& word : words) out << word << "\n";
  return kExitOk;
}

int RunCompleteNames(const std::string& inventory_path, const std::string& kind, const Services& services) {
  if (kind != "hosts") return PrintCompletionWords(kind, inventory_path, *services.out);
  if (inventory_path.empty()) return kExitOk;
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(inventory_path, diagnostics);
  if (!inventory) return kExitOk;
  for (const Host& h : inventory->hosts) *services.out << h.name << "\n";
  for (const Group& g : inventory->groups) *services.out << g.name << "\n";
  if (!inventory->FindGroup(kGroupAll)) *services.out << kGroupAll << "\n";
  return kExitOk;
}

int RunInventoryShow(const std::string& inventory_path, bool json, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(inventory_path, services, !json);
  if (!inventory) return kExitUsage;
  std::ostream& out = *services.out;
  if (json) {
    out << JsonText(InventoryToJson(*inventory), 2) << "\n";
    return kExitOk;
  }
  out << "Cluster " << inventory->cluster_name << " (" << inventory->source_file << ", format version "
      << inventory->format_version << ")\n";
  out << "\nHosts (" << inventory->hosts.size() << ")\n";
  TextTable hosts({"HOST", "ADDRESS", "INTERFACES", "CONNECTION", "KEY", "GROUPS"});
  for (const Host& h : inventory->hosts) {
    hosts.AddRow({h.name, h.address, InterfacesText(h), ConnectionText(h.connection),
                  h.connection.key_file.empty() ? "agent/default" : h.connection.key_file,
                  h.groups.empty() ? "-" : Join(h.groups, ",")});
  }
  hosts.Print(out, "  ");
  PrintGroups(*inventory, out);
  PrintVariables(*inventory, out);
  return kExitOk;
}

int RunInventoryImport(const std::string& ini_path, const std::string& cluster_name, const std::string& output_path,
                       bool force, const Services& services) {
  Diagnostics diagnostics;
  IniImportOptions options;
  options.cluster_name = cluster_name;
  options.vars_dir = std::filesystem::path(ini_path).parent_path().string();
  options.known_variables = RoleVariables(output_path, *services.log);
  std::optional<std::string> text = ReadUserFile(ini_path, options.limits, diagnostics);
  std::optional<IniImport> imported;
  if (text) imported = ImportAnsibleIni(*text, ini_path, options, diagnostics);
  if (!imported) {
    LogDiagnostics(diagnostics, *services.log);
    return kExitUsage;
  }
  std::string yaml = RenderImport(*imported, ini_path);
  for (const std::string& note : imported->notes) services.log->Info("note: " + note);
  if (output_path.empty()) {
    *services.out << yaml;
    return kExitOk;
  }
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
  int fd = ::open(output_path.c_str(), flags, 0644);
  if (fd < 0) {
    const int error = errno;
    services.log->Error("clusterctl: cannot write " + output_path + ": " + std::strerror(error) +
                        (error == EEXIST ? " (use --force to overwrite)" : ""));
    return kExitUsage;
  }
  bool ok = ::write(fd, yaml.data(), yaml.size()) == static_cast<ssize_t>(yaml.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    services.log->Error("clusterctl: writing " + output_path + " failed");
    return kExitFailed;
  }
  services.log->Info("wrote " + output_path + "; check it with: clusterctl inventory check " + output_path);
  return kExitOk;
}

void AddInventoryCommand(CLI::App& app, CommandValues& v) {
  std::string& inventory_path = v.Keep<std::string>();
  CLI::App* inventory = app.add_subcommand("inventory", "check, show or import an inventory");
  inventory->require_subcommand(1);
  CLI::App* check = inventory->add_subcommand("check", "validate an inventory: exit 0, or 2 with every problem");
  AddInventoryArgument(check, v, inventory_path);
  check->add_flag("--json", v.options.json, "one JSON document: ok, and every problem with file, line, column");
  bool& strict = v.Keep<bool>();
  AddStrictFlag(check, strict);
  check->callback([&v, &inventory_path, &strict] {
    v.exit_code = RunInventoryCheck(inventory_path, v.options.json, strict, v.services);
  });

  CLI::App* show = inventory->add_subcommand("show", "print resolved hosts, groups and variables");
  AddInventoryArgument(show, v, inventory_path);
  show->add_flag("--json", v.options.json, "one JSON document");
  show->callback([&v, &inventory_path] { v.exit_code = RunInventoryShow(inventory_path, v.options.json, v.services); });

  struct ImportValues {
    std::string ini_path, cluster_name = "cluster", output_path;
    bool force = false;
  };
  ImportValues& o = v.Keep<ImportValues>();
  CLI::App* import = inventory->add_subcommand("import", "convert a DeepOps/Ansible INI inventory");
  import->add_option("FILE", o.ini_path, "Ansible INI inventory")->required();
  import->add_option("--cluster", o.cluster_name, "cluster name for the new inventory")->capture_default_str();
  import->add_option("-o,--output", o.output_path, "write here instead of stdout")->type_name("FILE");
  import->add_flag("--force", o.force, "overwrite the output file if it exists");
  import->callback([&v, &o] {
    v.exit_code = RunInventoryImport(o.ini_path, o.cluster_name, o.output_path, o.force, v.services);
  });
}

void AddCompleteNamesCommand(CLI::App& app, CommandValues& v) {
  std::string& inventory_path = v.Keep<std::string>();
  CLI::App* names = app.add_subcommand("__complete-names", "print the inventory's host and group names");
  names->group("");
  std::string& kind = v.Keep<std::string>();
  kind = "hosts";
  names->add_option("INVENTORY", inventory_path, "inventory file");
  names->add_option("--kind", kind, "hosts (host and group names), tags, roles or checks")
      ->check(CLI::IsMember({"hosts", "tags", "roles", "checks"}));
  names->callback([&v, &inventory_path, &kind] { v.exit_code = RunCompleteNames(inventory_path, kind, v.services); });
}

}  // namespace clusterctl
