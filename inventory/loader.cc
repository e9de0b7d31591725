#include "inventory/loader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <tuple>

#include "common/strings.h"
#include "common/yaml_fields.h"
#include "inventory/ansible_groups.h"
#include "inventory/hostlist.h"
#include "inventory/loader_internal.h"

namespace clusterctl {
namespace {

using inventory_internal::GroupDraft;
using inventory_internal::HostDraft;
using inventory_internal::InventoryDraft;

const std::vector<std::string> kTopLevelKeys = {"version", "cluster", "connection", "bmc", "vars", "hosts", "groups"};

bool IsClusterName(const std::string& name) {
  if (name.empty() || name.size() > 40 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool RegularFileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), R_OK) == 0;
}

void FillDefaults(InventoryLoadOptions& options) {
  if (options.home_dir.empty()) {
    const char* home = std::getenv("HOME");
    options.home_dir = home ? home : "/root";
  }
  if (!options.file_exists) options.file_exists = RegularFileExists;
}

// Connection: cluster defaults, then groups shallow-to-deep (name order within
// a depth), then the host's own settings.
void ResolveConnections(InventoryDraft& draft) {
  for (HostDraft& h : draft.hosts) {
    ConnectionSettings settings;
    draft.cluster_connection.ApplyTo(settings);
    for (const Group* g : inventory_internal::GroupsInApplicationOrder(draft.inventory, h.host)) {
      g->connection.ApplyTo(settings);
    }
    h.connection.ApplyTo(settings);
    h.host.connection = settings;
  }
}

// The cluster level: `connection`, `bmc` and `vars` for every host.
void ParseClusterDefaults(const YamlNode& root, InventoryDraft& draft, const std::string& base_dir,
                          const InventoryLoadOptions& options, YamlFields& fields) {
  if (const YamlNode* connection = root.Find("connection")) {
    if (auto c = inventory_internal::ParseConnection(*connection, "the inventory", base_dir, options, fields)) {
      draft.cluster_connection = *c;
    }
  }
  if (const YamlNode* bmc = root.Find("bmc")) {
    if (auto b = inventory_internal::ParseBmc(*bmc, "the inventory", base_dir, options, fields, false)) {
      draft.cluster_bmc = *b;
    }
  }
  if (const YamlNode* vars = root.Find("vars")) {
    Inventory& inventory = draft.inventory;
    if (auto v = inventory_internal::ParseVars(*vars, "the inventory", fields, inventory.cluster_var_locations)) {
      inventory.cluster_vars = *v;
    }
  }
}

void CheckDuplicateEndpoints(const InventoryDraft& draft, Diagnostics& diagnostics) {
  std::map<std::pair<std::string, int>, const Host*> endpoints;
  for (const HostDraft& h : draft.hosts) {
    auto key = std::make_pair(h.host.address, h.host.connection.port);
    auto [it, inserted] = endpoints.emplace(key, &h.host);
    if (!inserted) {
      diagnostics.Error(h.host.defined_at, "hosts '" + it->second->name + "' and '" + h.host.name +
                                               "' have the same address " + h.host.address + " and port " +
                                               std::to_string(h.host.connection.port));
    }
  }
}

// A group named within a typo of a well-known group ('controler',
// 'computes') that is none itself: its hosts get none of that group's roles.
// And hosts that no group holds: they get only the roles for every host.
// Warnings (errors with --strict): a site may mean both.
void WarnAboutGroupNames(const Inventory& inventory, Diagnostics& diagnostics) {
  const std::vector<std::string>& known = WellKnownGroups();
  for (const Group& group : inventory.groups) {
    if (std::find(known.begin(), known.end(), group.name) != known.end() || FindAnsibleGroup(group.name)) continue;
    std::optional<std::string> close = ClosestMatch(group.name, known);
    if (!close || inventory.FindGroup(*close)) continue;
    diagnostics.Warning(group.defined_at, "group '" + group.name + "' is not a group clusterctl's roles know (did you mean '" +
                                              *close + "'?): its hosts get none of the roles of group '" + *close + "'");
  }
  std::vector<std::string> alone;
  const Host* first = nullptr;
  for (const Host& host : inventory.hosts) {
    const bool in_a_group = std::any_of(host.groups.begin(), host.groups.end(),
                                        [](const std::string& g) { return g != kGroupAll; });
    if (in_a_group) continue;
    if (!first) first = &host;
    alone.push_back(host.name);
  }
  if (!first) return;
  diagnostics.Warning(first->defined_at, std::to_string(alone.size()) + " host" + (alone.size() == 1 ? " is" : "s are") +
                                             " in no group (" + CollapseHostList(alone) +
                                             "): they get only the roles for every host (chrony, hosts, users, the "
                                             "GPU driver where there are GPUs); put them in a group");
}

// Slurm has one primary controller (group controller) and here at most one
// backup (group controller_backup), a different host: slurm.conf lists the
// primary first, and slurmctld refuses to run on a host it does not list.
void CheckControllers(const Inventory& inventory, Diagnostics& diagnostics) {
  const Group* controller = inventory.FindGroup(kGroupController);
  const Group* backup = inventory.FindGroup(kGroupControllerBackup);
  if (controller && controller->members.size() > 1) {
    diagnostics.Error(controller->defined_at,
                      "group 'controller' has " + std::to_string(controller->members.size()) + " hosts (" +
                          Join(controller->members, ", ") +
                          "); Slurm has one primary controller: put a backup in group 'controller_backup'");
  }
  if (!backup || backup->members.empty()) return;
  if (backup->members.size() > 1) {
    diagnostics.Error(backup->defined_at, "group 'controller_backup' has " + std::to_string(backup->members.size()) +
                                              " hosts (" + Join(backup->members, ", ") + "); it takes one backup controller");
  }
  if (!controller || controller->members.empty()) {
    diagnostics.Error(backup->defined_at, "group 'controller_backup' has " + backup->members.front() +
                                              " but group 'controller' has no host: a backup needs a primary");
    return;
  }
  for (const std::string& name : backup->members) {
    if (name == controller->members.front()) {
      diagnostics.Error(backup->defined_at, "host '" + name +
                                                "' is in both 'controller' and 'controller_backup': the backup must be another host");
    }
  }
}

// What was read of a failed inventory (InventoryLoadOptions::partial): one
// host per host pattern whose variables were not resolved, so a pattern of
// 100,000 hosts costs one copy of its vars.
void KeepPartial(InventoryDraft& draft, const InventoryLoadOptions& options) {
  if (!options.partial) return;
  Inventory partial = draft.inventory;
  partial.groups.clear();
  for (const GroupDraft& g : draft.groups) partial.groups.push_back(g.group);
  std::set<const void*> patterns;
  for (const HostDraft& h : draft.hosts) {
    if (!h.host.vars.empty() || !h.host.var_origins.empty()) {
      partial.hosts.push_back(h.host);
    } else if (h.own_vars && patterns.insert(h.own_vars.get()).second) {
      Host host = h.host;
      host.vars = h.own_vars->values;
      host.var_origins = h.own_vars->locations;
      partial.hosts.push_back(std::move(host));
    }
  }
  *options.partial = std::move(partial);
}

// A YAML syntax error ends the parse, and with it every other check of the
// file. For InventoryLoadOptions::partial, the top-level sections that end
// before the error are read on their own (their own problems not reported:
// the sections after them are missing), so that `vars:` above a broken
// `hosts:` is still checked against the roles in the same pass.
void ReadBeforeSyntaxError(std::string_view text, const std::string& file_name, const std::string& base_dir,
                           const Diagnostics& diagnostics, InventoryLoadOptions& options) {
  if (!options.partial || diagnostics.items().empty()) return;
  const Diagnostic& error = diagnostics.items().back();
  if (error.message.rfind("YAML syntax error", 0) != 0 || error.where.line <= 1) return;
  size_t section_start = 0;  // offset of the last top-level key at or before the error's line
  size_t offset = 0;
  for (int line = 1; line <= error.where.line && offset < text.size(); ++line) {
    const char first = text[offset];
    if (std::isalpha(static_cast<unsigned char>(first))) section_start = offset;
    const size_t end = text.find('\n', offset);
    if (end == std::string_view::npos) break;
    offset = end + 1;
  }
  if (section_start == 0) return;
  Diagnostics not_reported;
  Inventory partial;
  InventoryLoadOptions before = options;
  before.partial = &partial;
  std::optional<Inventory> read = ParseInventory(text.substr(0, section_start), file_name, base_dir, not_reported, before);
  *options.partial = read ? std::move(*read) : std::move(partial);
}

}  // namespace

std::optional<Inventory> ParseInventory(std::string_view text, const std::string& file_name,
                                        const std::string& base_dir, Diagnostics& diagnostics,
                                        InventoryLoadOptions options) {
  FillDefaults(options);
  const int errors_before = diagnostics.error_count();
  std::optional<YamlNode> root = ParseYaml(text, file_name, options.limits, diagnostics, /*past_duplicate_keys=*/true);
  if (!root) {
    if (diagnostics.error_count() == errors_before + 1) ReadBeforeSyntaxError(text, file_name, base_dir, diagnostics, options);
    return std::nullopt;
  }
  YamlFields fields(diagnostics);
  if (root->is_null()) {
    diagnostics.Error({file_name, 1, 1}, "the inventory is empty; it needs at least 'cluster' and 'hosts'");
    return std::nullopt;
  }
  if (!fields.ExpectMap(*root, "the inventory", false)) return std::nullopt;
  fields.CheckKnownKeys(*root, kTopLevelKeys, "the inventory");

  InventoryDraft draft;
  Inventory& inventory = draft.inventory;
  inventory.source_file = file_name;
  inventory.base_dir = base_dir;

  if (const YamlNode* version = root->Find("version")) {
    if (auto v = fields.Integer(*version, "version", 1, 1000000); v && *v != kInventoryFormatVersion) {
      fields.Error(version->location, "inventory format version " + std::to_string(*v) +
                                          " is not supported by this clusterctl (it reads version " +
                                          std::to_string(kInventoryFormatVersion) + ")");
    }
  }
  if (const YamlNode* cluster = root->Find("cluster")) {
    if (auto name = fields.String(*cluster, "cluster")) {
      if (IsClusterName(*name)) {
        inventory.cluster_name = *name;
      } else {
        fields.Error(cluster->location, "cluster name '" + *name +
                                            "' must be 1-40 lowercase letters, digits, '_' or '-', starting with a letter");
      }
    }
  } else {
    fields.Error({file_name, 1, 1}, "missing required key 'cluster' (the cluster's name)");
  }
  ParseClusterDefaults(*root, draft, base_dir, options, fields);
  if (const YamlNode* hosts = root->Find("hosts")) {
    inventory_internal::ParseHosts(*hosts, draft, options, fields);
    if (hosts->is_map() && hosts->entries.empty()) fields.Error(hosts->location, "'hosts' is empty");
  } else {
    fields.Error({file_name, 1, 1}, "missing required key 'hosts'");
  }
  if (const YamlNode* groups = root->Find("groups")) inventory_internal::ParseGroups(*groups, draft, options, fields);
  if (diagnostics.has_errors() && draft.incomplete) {
    KeepPartial(draft, options);
    return std::nullopt;
  }

  for (auto& g : draft.groups) inventory.groups.push_back(g.group);
  if (!inventory_internal::ResolveGroups(draft, options.size.max_group_memberships, diagnostics)) {
    KeepPartial(draft, options);
    return std::nullopt;
  }
  inventory.groups.clear();
  for (size_t i = 0; i < draft.groups.size(); ++i) {
    inventory.groups.push_back(draft.groups[i].group);
    inventory.group_index[draft.groups[i].group.name] = i;
  }
  ResolveConnections(draft);
  inventory_internal::ResolveBmcs(draft, diagnostics);
  inventory_internal::ResolveVariables(draft, options.size.max_variable_bytes, diagnostics);
  CheckDuplicateEndpoints(draft, diagnostics);
  CheckControllers(inventory, diagnostics);
  if (diagnostics.has_errors()) {
    KeepPartial(draft, options);
    return std::nullopt;
  }

  for (HostDraft& h : draft.hosts) {
    std::sort(h.host.interfaces.begin(), h.host.interfaces.end(),
              [](const Interface& a, const Interface& b) { return a.name < b.name; });
    inventory.host_index[h.host.name] = inventory.hosts.size();
    inventory.hosts.push_back(std::move(h.host));
  }
  WarnAboutAnsibleGroupNames(inventory, diagnostics);
  WarnAboutGroupNames(inventory, diagnostics);
  return inventory;
}

std::optional<Inventory> LoadInventory(const std::string& path, Diagnostics& diagnostics,
                                       InventoryLoadOptions options) {
  FillDefaults(options);
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) absolute = path;
  struct stat st;
  if (::stat(absolute.c_str(), &st) != 0) {
    diagnostics.Error({path, 0, 0}, "inventory file not found");
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    diagnostics.Error({path, 0, 0}, "not a regular file");
    return std::nullopt;
  }
  std::optional<std::string> text = ReadUserFile(absolute.string(), options.limits, diagnostics);
  if (!text) return std::nullopt;
  std::optional<Inventory> inventory =
      ParseInventory(*text, path, absolute.parent_path().string(), diagnostics, options);
  if (inventory) inventory->source_file = absolute.string();
  return inventory;
}

}  // namespace clusterctl
