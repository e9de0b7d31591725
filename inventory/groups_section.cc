// Parses the `groups:` map and resolves group membership.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "common/strings.h"
#include "inventory/hostlist.h"
#include "inventory/loader_internal.h"

namespace clusterctl::inventory_internal {
namespace {

const std::vector<std::string> kGroupKeys = {"hosts", "children", "vars", "connection", "bmc", "roles"};

bool IsGroupName(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// How many (group, name) pairs the groups may list in all, and how many they
// have listed so far: bounds the expansion of ranges in group host lists.
struct ListedNames {
  size_t limit;
  size_t used = 0;
};

// A list of names in which each item may be a range pattern; locations kept
// per expanded name. False (with an error) once the groups list more names
// than `listed` allows: the caller stops reading groups.
bool ParseNameList(const YamlNode& node, const std::string& what, bool expand_ranges,
                   std::vector<std::string>& names, std::vector<SourceLocation>& locations,
                   ListedNames& listed, YamlFields& fields) {
  if (node.is_null()) return true;
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
      std::vector<std::string> expanded = {pattern};
      if (expand_ranges) {
        auto expansion = ExpandHostPattern(pattern);
        if (!expansion.ok()) {
          fields.Error(item->location, what + ": " + expansion.status().message());
          continue;
        }
        expanded = std::move(expansion).value();
      }
      listed.used += expanded.size();
      if (listed.used > listed.limit) {
        fields.Error(item->location, what + ": '" + pattern + "' takes the groups past " +
                                         std::to_string(listed.limit) +
                                         " listed names in all; the groups after it were not read");
        return false;
      }
      for (std::string& name : expanded) {
        names.push_back(std::move(name));
        locations.push_back(item->location);
      }
    }
  }
  return true;
}

// "Did you mean" costs a pass over every host; a file naming thousands of
// unknown hosts gets it for the first few only.
constexpr int kUndefinedNameHints = 20;

struct NameIndex {
  const std::map<std::string, size_t>& host_order;
  const std::map<std::string, GroupDraft*>& groups;
  const std::vector<std::string>& host_names;
  const std::vector<std::string>& group_names;
  int hints_left = kUndefinedNameHints;
};

// Reports the names in `g`'s host list that are not hosts: one error per list
// item, so a range of undefined names ("b[1-5000]") is one line, not 5000.
void ReportUndefinedHosts(const GroupDraft& g, NameIndex& index, Diagnostics& diagnostics) {
  const std::vector<std::string>& names = g.group.hosts;
  for (size_t i = 0; i < names.size();) {
    const SourceLocation& where = g.host_locations[i];
    std::vector<std::string> unknown;
    size_t end = i;
    for (; end < names.size() && g.host_locations[end].line == where.line &&
           g.host_locations[end].column == where.column;
         ++end) {
      if (!index.host_order.count(names[end])) unknown.push_back(names[end]);
    }
    i = end;
    if (unknown.empty()) continue;
    if (unknown.size() > 1) {
      diagnostics.Error(where, "group '" + g.group.name + "' names " + std::to_string(unknown.size()) + " hosts (" +
                                   CollapseHostList(unknown) + ") that are not defined under 'hosts'");
      continue;
    }
    const std::string& name = unknown.front();
    std::string hint;
    if (index.groups.count(name) || name == kGroupAll) {
      hint = " ('" + name + "' is a group; list it under 'children')";
    } else if (index.hints_left > 0) {
      --index.hints_left;
      hint = DidYouMean(name, index.host_names);
    }
    diagnostics.Error(where, "group '" + g.group.name + "' names host '" + name +
                                 "', which is not defined under 'hosts'" + hint);
  }
}

// The names a group may refer to, for the checks and expansions below.
struct GroupIndex {
  explicit GroupIndex(InventoryDraft& draft) : group_names{kGroupAll} {
    for (size_t i = 0; i < draft.hosts.size(); ++i) {
      host_order[draft.hosts[i].host.name] = i;
      host_names.push_back(draft.hosts[i].host.name);
    }
    for (GroupDraft& g : draft.groups) {
      by_name[g.group.name] = &g;
      group_names.push_back(g.group.name);
    }
  }
  std::map<std::string, size_t> host_order;  // host name -> its index in draft.hosts
  std::vector<std::string> host_names;
  std::map<std::string, GroupDraft*> by_name;
  std::vector<std::string> group_names;  // "all" first
};

// Reports `g`'s children that are not groups.
void ReportUndefinedChildren(const GroupDraft& g, NameIndex& index, Diagnostics& diagnostics) {
  for (size_t i = 0; i < g.group.children.size(); ++i) {
    const std::string& name = g.group.children[i];
    if (index.groups.count(name)) continue;
    std::string hint;
    if (index.host_order.count(name)) {
      hint = " ('" + name + "' is a host; list it under 'hosts')";
    } else if (index.hints_left > 0) {
      --index.hints_left;
      hint = DidYouMean(name, index.group_names);
    }
    diagnostics.Error(g.child_locations[i], "group '" + g.group.name + "' names child group '" + name +
                                                "', which is not defined under 'groups'" + hint);
  }
}

// Reports groups named like a host, and host and child lists naming what is
// not defined. False when it reported anything.
bool ReportUnknownNames(const InventoryDraft& draft, const GroupIndex& index, Diagnostics& diagnostics) {
  const int errors_before = diagnostics.error_count();
  for (const GroupDraft& g : draft.groups) {
    if (index.host_order.count(g.group.name)) {
      diagnostics.Error(g.group.defined_at, "group '" + g.group.name + "' has the same name as a host; "
                                            "names must be unambiguous in --limit patterns");
    }
  }
  NameIndex known{index.host_order, index.by_name, index.host_names, index.group_names};
  for (const GroupDraft& g : draft.groups) {
    ReportUndefinedHosts(g, known, diagnostics);
    ReportUndefinedChildren(g, known, diagnostics);
  }
  return diagnostics.error_count() == errors_before;
}

// Reports the first cycle of groups found (its path, once). True when there is one.
// REQUIRES: every child names a group (ReportUnknownNames passed).
bool ReportGroupCycle(InventoryDraft& draft, const GroupIndex& index, Diagnostics& diagnostics) {
  // Depth-first search with colours.
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
        visit(*index.by_name.at(child));
      }
    }
    stack.pop_back();
    colour[g.group.name] = 2;
  };
  for (GroupDraft& g : draft.groups) {
    if (!cyclic && colour[g.group.name] == 0) visit(g);
  }
  return cyclic;
}

// Each group's depth: the longest chain of parents above it.
// REQUIRES: the groups form no cycle.
std::map<std::string, int> GroupDepths(const InventoryDraft& draft) {
  std::map<std::string, std::vector<std::string>> parents;
  for (const GroupDraft& g : draft.groups) {
    for (const std::string& child : g.group.children) parents[child].push_back(g.group.name);
  }
  std::map<std::string, int> depths;
  std::function<int(const std::string&)> depth = [&](const std::string& name) -> int {
    if (auto it = depths.find(name); it != depths.end()) return it->second;
    int d = 0;
    for (const std::string& parent : parents[name]) d = std::max(d, depth(parent) + 1);
    return depths[name] = d;
  };
  for (const GroupDraft& g : draft.groups) depth(g.group.name);
  return depths;
}

// Each group's members (indices into draft.hosts): its direct hosts plus
// every child's members, in inventory order. Nothing when the groups hold
// more than `max_memberships` (group, host) pairs: every pair gathered counts,
// inherited ones included, so nested groups cannot multiply the work past the
// limit. REQUIRES: the groups form no cycle.
std::optional<std::map<std::string, std::set<size_t>>> GroupMembers(InventoryDraft& draft, const GroupIndex& index,
                                                                   size_t max_memberships) {
  std::map<std::string, std::set<size_t>> members_memo;
  size_t memberships = 0;
  std::function<const std::set<size_t>&(GroupDraft&)> members = [&](GroupDraft& g) -> const std::set<size_t>& {
    if (auto it = members_memo.find(g.group.name); it != members_memo.end()) return it->second;
    std::set<size_t> result;
    for (const std::string& host : g.group.hosts) result.insert(index.host_order.at(host));
    memberships += g.group.hosts.size();
    for (const std::string& child : g.group.children) {
      if (memberships > max_memberships) break;
      const std::set<size_t>& child_members = members(*index.by_name.at(child));
      memberships += child_members.size();
      result.insert(child_members.begin(), child_members.end());
    }
    return members_memo[g.group.name] = std::move(result);
  };
  for (GroupDraft& g : draft.groups) {
    if (memberships <= max_memberships) members(g);
  }
  if (memberships > max_memberships) return std::nullopt;
  return members_memo;
}

}  // namespace

void ParseGroups(const YamlNode& node, InventoryDraft& draft, const InventoryLoadOptions& options,
                 YamlFields& fields) {
  if (!fields.ExpectMap(node, "'groups'")) {
    draft.incomplete = true;
    return;
  }
  ListedNames listed{options.size.max_group_memberships};
  for (size_t i = 0; i < node.entries.size(); ++i) {
    const auto& [name, body] = node.entries[i];
    const SourceLocation& where = node.key_locations[i];
    if (name == kGroupAll) {
      fields.Error(where, "group 'all' is implicit (every host); set cluster-wide values under the top-level 'vars'");
      draft.incomplete = true;
      continue;
    }
    if (!IsGroupName(name)) {
      fields.Error(where, "group name '" + name + "' must start with a letter and contain only letters, digits, '_' or '-'");
      draft.incomplete = true;
      continue;
    }
    const std::string context = "group '" + name + "'";
    GroupDraft draft_group;
    draft_group.group.name = name;
    draft_group.group.defined_at = where;
    if (!fields.ExpectMap(body, context)) {
      draft.incomplete = true;
      continue;
    }
    fields.CheckKnownKeys(body, kGroupKeys, context);
    const YamlNode* hosts = body.Find("hosts");
    if (hosts && !ParseNameList(*hosts, "'hosts' of " + context, true, draft_group.group.hosts,
                                draft_group.host_locations, listed, fields)) {
      draft.incomplete = true;
      return;
    }
    const YamlNode* children = body.Find("children");
    if (children && !ParseNameList(*children, "'children' of " + context, false, draft_group.group.children,
                                   draft_group.child_locations, listed, fields)) {
      draft.incomplete = true;
      return;
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
    if (const YamlNode* bmc = body.Find("bmc")) {
      if (auto b = ParseBmc(*bmc, context, draft.inventory.base_dir, options, fields, false)) {
        draft_group.group.bmc = *b;
      }
    }
    draft.groups.push_back(std::move(draft_group));
  }
}

bool ResolveGroups(InventoryDraft& draft, size_t max_memberships, Diagnostics& diagnostics) {
  const GroupIndex index(draft);
  if (!ReportUnknownNames(draft, index, diagnostics)) return false;
  if (ReportGroupCycle(draft, index, diagnostics)) return false;
  std::optional<std::map<std::string, std::set<size_t>>> members =
      GroupMembers(draft, index, max_memberships);
  if (!members) {
    diagnostics.Error({draft.inventory.source_file, 0, 0},
                      "the groups hold more than " + std::to_string(max_memberships) +
                          " (group, host) memberships once groups of groups are expanded; "
                          "clusterctl reads at most that many");
    return false;
  }
  const std::map<std::string, int> depths = GroupDepths(draft);
  for (GroupDraft& g : draft.groups) {
    g.group.depth = depths.at(g.group.name);
    for (size_t host : members->at(g.group.name)) {
      g.group.members.push_back(draft.hosts[host].host.name);
      draft.hosts[host].host.groups.push_back(g.group.name);
    }
  }
  for (HostDraft& h : draft.hosts) std::sort(h.host.groups.begin(), h.host.groups.end());
  return true;
}

std::vector<const Group*> GroupsInApplicationOrder(const Inventory& inventory, const Host& host) {
  std::vector<const Group*> ordered;
  for (const std::string& name : host.groups) {
    if (auto it = inventory.group_index.find(name); it != inventory.group_index.end()) {
      ordered.push_back(&inventory.groups[it->second]);
    }
  }
  std::sort(ordered.begin(), ordered.end(), [](const Group* a, const Group* b) {
    return std::tie(a->depth, a->name) < std::tie(b->depth, b->name);
  });
  return ordered;
}

}  // namespace clusterctl::inventory_internal
