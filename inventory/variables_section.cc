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

// Roughly the bytes a JSON value occupies: its text, plus a fixed cost per
// value. Used only to bound the copies that resolution makes.
size_t ApproximateBytes(const nlohmann::json& value) {
  constexpr size_t kPerValue = 16;
  if (value.is_string()) return kPerValue + value.get_ref<const std::string&>().size();
  size_t bytes = kPerValue;
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) bytes += key.size() + ApproximateBytes(item);
  } else if (value.is_array()) {
    for (const auto& item : value) bytes += ApproximateBytes(item);
  }
  return bytes;
}

// What every host's resolved variables would add up to, at most: each host
// gets the cluster's, its groups' and its own.
size_t ResolvedVariableBytes(const InventoryDraft& draft) {
  std::map<std::string, size_t> group_bytes;
  for (const Group& g : draft.inventory.groups) group_bytes[g.name] = ApproximateBytes(g.vars);
  const size_t cluster_bytes = ApproximateBytes(draft.inventory.cluster_vars);
  std::map<const PatternVars*, size_t> pattern_bytes;
  size_t total = 0;
  for (const HostDraft& h : draft.hosts) {
    total += cluster_bytes;
    if (h.own_vars) {
      auto [it, inserted] = pattern_bytes.try_emplace(h.own_vars.get(), 0);
      if (inserted) it->second = ApproximateBytes(h.own_vars->values);
      total += it->second;
    }
    for (const std::string& group : h.host.groups) total += group_bytes[group];
  }
  return total;
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
  nlohmann::json vars = YamlToJson(node);
  // `vars:` with nothing under it is YAML's null: no variables, as at the
  // host and group levels (a null here reached the views, which threw).
  return vars.is_null() ? nlohmann::json::object() : vars;
}

void ResolveVariables(InventoryDraft& draft, size_t max_bytes, Diagnostics& diagnostics) {
  Inventory& inventory = draft.inventory;
  if (size_t bytes = ResolvedVariableBytes(draft); bytes > max_bytes) {
    diagnostics.Error({inventory.source_file, 0, 0},
                      "the variables come to about " + std::to_string(bytes >> 20) + " MiB once every host has " +
                          "its own copy (" + std::to_string(draft.hosts.size()) + " hosts), past the limit of " +
                          std::to_string(max_bytes >> 20) + " MiB; keep large values in files beside the inventory");
    return;
  }

  std::set<std::tuple<std::string, std::string, std::string>> warned;  // var, group a, group b
  for (HostDraft& draft_host : draft.hosts) {
    Host& host = draft_host.host;
    nlohmann::json vars = inventory.cluster_vars;
    std::map<std::string, SourceLocation> origins = inventory.cluster_var_locations;
    std::map<std::string, const Group*> set_by;  // variable -> group that set it last
    for (const Group* g : GroupsInApplicationOrder(inventory, host)) {
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
    if (draft_host.own_vars) {
      const PatternVars& own = *draft_host.own_vars;
      for (const auto& [key, value] : own.values.items()) {
        vars[key] = value;
        origins[key] = own.locations.count(key) ? own.locations.at(key) : host.defined_at;
      }
    }
    host.vars = std::move(vars);
    host.var_origins = std::move(origins);
  }
}

}  // namespace clusterctl::inventory_internal
