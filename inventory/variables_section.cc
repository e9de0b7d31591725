// Variables: parsing `vars` maps and resolving each host's variables.
//
// Precedence (docs/inventory.md): cluster `vars` < group `vars` < host `vars`.
// Among groups, a group deeper in the group tree (a child) wins over its
// ancestors; groups of the same depth apply in name order, so the later name
// wins, and the loader warns when two such groups disagree. A value replaces
// the whole value of a lower level (maps are not merged).
#include <algorithm>
#include <set>
#include <tuple>

#include "inventory/loader_internal.h"

namespace clusterctl::inventory_internal {
namespace {

bool IsVariableName(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

std::optional<nlohmann::json> ParseVars(const YamlNode& node, const std::string& context, YamlFields& fields,
                                        std::map<std::string, SourceLocation>& locations) {
  if (!fields.ExpectMap(node, "'vars' of " + context)) return std::nullopt;
  bool ok = true;
  for (size_t i = 0; i < node.entries.size(); ++i) {
    const std::string& name = node.entries[i].first;
    locations[name] = node.entries[i].second.location;
    if (!IsVariableName(name)) {
      fields.Error(node.key_locations[i], "variable name '" + name + "' in " + context +
                                              " must be letters, digits and '_', not starting with a digit");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return YamlToJson(node);
}

void ResolveVariables(InventoryDraft& draft, Diagnostics& diagnostics) {
  Inventory& inventory = draft.inventory;
  // Groups in application order: shallow first, then by name.
  std::vector<const Group*> ordered;
  for (const Group& g : inventory.groups) ordered.push_back(&g);
  std::sort(ordered.begin(), ordered.end(), [](const Group* a, const Group* b) {
    return std::tie(a->depth, a->name) < std::tie(b->depth, b->name);
  });

  std::set<std::tuple<std::string, std::string, std::string>> warned;  // var, group a, group b
  for (HostDraft& draft_host : draft.hosts) {
    Host& host = draft_host.host;
    nlohmann::json vars = inventory.cluster_vars;
    std::map<std::string, SourceLocation> origins = inventory.cluster_var_locations;
    std::map<std::string, const Group*> set_by;  // variable -> group that set it last
    for (const Group* g : ordered) {
      if (!std::binary_search(host.groups.begin(), host.groups.end(), g->name)) continue;
      for (const auto& [key, value] : g->vars.items()) {
        auto previous = set_by.find(key);
        if (previous != set_by.end() && previous->second->depth == g->depth && vars[key] != value &&
            warned.insert({key, previous->second->name, g->name}).second) {
          diagnostics.Warning(g->defined_at, "variable '" + key + "' is set differently by groups '" +
                                                 previous->second->name + "' and '" + g->name +
                                                 "' of the same depth (host " + host.name +
                                                 " and others); '" + g->name + "' wins (later in name order)");
        }
        vars[key] = value;
        origins[key] = g->var_locations.count(key) ? g->var_locations.at(key) : g->defined_at;
        set_by[key] = g;
      }
    }
    for (const auto& [key, value] : host.vars.items()) {
      vars[key] = value;
      origins[key] = host.var_origins.count(key) ? host.var_origins.at(key) : host.defined_at;
    }
    host.vars = std::move(vars);
    host.var_origins = std::move(origins);
  }
}

}  // namespace clusterctl::inventory_internal
