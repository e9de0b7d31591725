// Parses the `groups:` map and resolves group membership.
#include <algorithm>
#include <functional>
#include <set>

#include "common/strings.h"
#include "inventory/hostlist.h"
#include "inventory/loader_internal.h"

namespace clusterctl::inventory_internal {
namespace {

const std::vector<std::string> kGroupKeys = {"hosts", "children", "vars", "connection", "roles"};

bool IsGroupName(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A list of names in which each item may be a range pattern; locations kept per expanded name.
void ParseNameList(const YamlNode& node, const std::string& what, bool expand_ranges,
                   std::vector<std::string>& names, std::vector<SourceLocation>& locations,
                   YamlFields& fields) {
  if (node.is_null()) return;
  std::vector<const YamlNode*> items;
  if (node.is_scalar()) {
    items.push_back(&node);
  } else if (fields.ExpectSequence(node, what)) {
    for (const YamlNode& item : node.items) items.push_back(&item);
  }
  for (const YamlNode* item : items) {
    std::optional<std::string> text = fields.String(*item, "each entry of " + what);
    if (!text) continue;
    for (const std::string& pattern : SplitHostList(*text)) {
      if (pattern.empty()) {
        fields.Error(item->location, what + ": empty name in '" + *text + "'");
        continue;
      }
      if (!expand_ranges) {
        names.push_back(pattern);
        locations.push_back(item->location);
        continue;
      }
      auto expanded = ExpandHostPattern(pattern);
      if (!expanded.ok()) {
        fields.Error(item->location, what + ": " + expanded.status().message());
        continue;
      }
      for (std::string& name : *expanded) {
        names.push_back(std::move(name));
        locations.push_back(item->location);
      }
    }
  }
}

}  // namespace

void ParseGroups(const YamlNode& node, InventoryDraft& draft, const InventoryLoadOptions& options,
                 YamlFields& fields) {
  if (!fields.ExpectMap(node, "'groups'")) return;
  for (size_t i = 0; i < node.entries.size(); ++i) {
    const auto& [name, body] = node.entries[i];
    const SourceLocation& where = node.key_locations[i];
    if (name == kGroupAll) {
      fields.Error(where, "group 'all' is implicit (every host); set cluster-wide values under the top-level 'vars'");
      continue;
    }
    if (!IsGroupName(name)) {
      fields.Error(where, "group name '" + name + "' must start with a letter and contain only letters, digits, '_' or '-'");
      continue;
    }
    const std::string context = "group '" + name + "'";
    GroupDraft draft_group;
    draft_group.group.name = name;
    draft_group.group.defined_at = where;
    if (!fields.ExpectMap(body, context)) continue;
    fields.CheckKnownKeys(body, kGroupKeys, context);
    if (const YamlNode* hosts = body.Find("hosts")) {
      ParseNameList(*hosts, "'hosts' of " + context, true, draft_group.group.hosts, draft_group.host_locations, fields);
    }
    if (const YamlNode* children = body.Find("children")) {
      ParseNameList(*children, "'children' of " + context, false, draft_group.group.children,
                    draft_group.child_locations, fields);
    }
    if (const YamlNode* roles = body.Find("roles")) {
      if (auto list = fields.StringList(*roles, "'roles' of " + context)) draft_group.group.roles = *list;
    }
    if (const YamlNode* vars = body.Find("vars")) {
      if (auto v = ParseVars(*vars, context, fields, draft_group.group.var_locations)) draft_group.group.vars = *v;
    }
    if (const YamlNode* connection = body.Find("connection")) {
      if (auto c = ParseConnection(*connection, context, draft.inventory.base_dir, options, fields)) {
        draft_group.group.connection = *c;
      }
    }
    draft.groups.push_back(std::move(draft_group));
  }
}

bool ResolveGroups(InventoryDraft& draft, Diagnostics& diagnostics) {
  const int errors_before = diagnostics.error_count();
  std::map<std::string, size_t> host_order;
  std::vector<std::string> host_names;
  for (size_t i = 0; i < draft.hosts.size(); ++i) {
    host_order[draft.hosts[i].host.name] = i;
    host_names.push_back(draft.hosts[i].host.name);
  }
  std::map<std::string, GroupDraft*> by_name;
  std::vector<std::string> group_names = {kGroupAll};
  for (GroupDraft& g : draft.groups) {
    by_name[g.group.name] = &g;
    group_names.push_back(g.group.name);
    if (host_order.count(g.group.name)) {
      diagnostics.Error(g.group.defined_at, "group '" + g.group.name + "' has the same name as a host; "
                                            "names must be unambiguous in --limit patterns");
    }
  }

  for (GroupDraft& g : draft.groups) {
    for (size_t i = 0; i < g.group.hosts.size(); ++i) {
      const std::string& name = g.group.hosts[i];
      if (host_order.count(name)) continue;
      std::string hint = by_name.count(name) || name == kGroupAll
                             ? " ('" + name + "' is a group; list it under 'children')"
                             : DidYouMean(name, host_names);
      diagnostics.Error(g.host_locations[i], "group '" + g.group.name + "' names host '" + name +
                                                 "', which is not defined under 'hosts'" + hint);
    }
    for (size_t i = 0; i < g.group.children.size(); ++i) {
      const std::string& name = g.group.children[i];
      if (by_name.count(name)) continue;
      std::string hint = host_order.count(name) ? " ('" + name + "' is a host; list it under 'hosts')"
                                                : DidYouMean(name, group_names);
      diagnostics.Error(g.child_locations[i], "group '" + g.group.name + "' names child group '" + name +
                                                  "', which is not defined under 'groups'" + hint);
    }
  }
  if (diagnostics.error_count() > errors_before) return false;

  // Cycle detection (DFS with colours), reporting the cycle's path once.
  std::map<std::string, int> colour;  // 0 new, 1 on stack, 2 done
  std::vector<std::string> stack;
  bool cyclic = false;
  std::function<void(GroupDraft&)> visit = [&](GroupDraft& g) {
    colour[g.group.name] = 1;
    stack.push_back(g.group.name);
    for (size_t i = 0; i < g.group.children.size() && !cyclic; ++i) {
      const std::string& child = g.group.children[i];
      if (colour[child] == 1) {
        auto start = std::find(stack.begin(), stack.end(), child);
        std::vector<std::string> cycle(start, stack.end());
        cycle.push_back(child);
        diagnostics.Error(g.child_locations[i], "groups form a cycle: " + Join(cycle, " -> "));
        cyclic = true;
      } else if (colour[child] == 0) {
        visit(*by_name[child]);
      }
    }
    stack.pop_back();
    colour[g.group.name] = 2;
  };
  for (GroupDraft& g : draft.groups) {
    if (!cyclic && colour[g.group.name] == 0) visit(g);
  }
  if (cyclic) return false;

  // Depth: longest chain of parents above a group.
  std::map<std::string, std::vector<std::string>> parents;
  for (GroupDraft& g : draft.groups) {
    for (const std::string& child : g.group.children) parents[child].push_back(g.group.name);
  }
  std::map<std::string, int> depth_memo;
  std::function<int(const std::string&)> depth = [&](const std::string& name) -> int {
    if (auto it = depth_memo.find(name); it != depth_memo.end()) return it->second;
    int d = 0;
    for (const std::string& parent : parents[name]) d = std::max(d, depth(parent) + 1);
    return depth_memo[name] = d;
  };

  // Members: direct hosts plus every child's members, in inventory order.
  std::map<std::string, std::set<size_t>> members_memo;
  std::function<const std::set<size_t>&(GroupDraft&)> members = [&](GroupDraft& g) -> const std::set<size_t>& {
    if (auto it = members_memo.find(g.group.name); it != members_memo.end()) return it->second;
    std::set<size_t> result;
    for (const std::string& host : g.group.hosts) result.insert(host_order[host]);
    for (const std::string& child : g.group.children) {
      const std::set<size_t>& child_members = members(*by_name[child]);
      result.insert(child_members.begin(), child_members.end());
    }
    return members_memo[g.group.name] = std::move(result);
  };

  for (GroupDraft& g : draft.groups) {
    g.group.depth = depth(g.group.name);
    for (size_t index : members(g)) {
      g.group.members.push_back(draft.hosts[index].host.name);
      draft.hosts[index].host.groups.push_back(g.group.name);
    }
  }
  for (HostDraft& h : draft.hosts) std::sort(h.host.groups.begin(), h.host.groups.end());
  return true;
}

}  // namespace clusterctl::inventory_internal
