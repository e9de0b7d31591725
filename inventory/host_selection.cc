#include "inventory/host_selection.h"

#include <set>

#include "common/strings.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

bool IsGlob(std::string_view term) { return term.find_first_of("*?") != std::string_view::npos; }

// The host indexes a term names, or an error naming the term.
Result<std::set<size_t>> Resolve(const Inventory& inventory, const std::string& term) {
  std::set<size_t> out;
  auto add_host = [&](const std::string& name) {
    auto it = inventory.host_index.find(name);
    if (it != inventory.host_index.end()) out.insert(it->second);
  };
  if (term == kGroupAll) {
    for (size_t i = 0; i < inventory.hosts.size(); ++i) out.insert(i);
  } else if (const Group* group = inventory.FindGroup(term)) {
    for (const std::string& name : group->members) add_host(name);
  } else if (IsGlob(term)) {
    for (size_t i = 0; i < inventory.hosts.size(); ++i) {
      if (GlobMatch(term, inventory.hosts[i].name)) out.insert(i);
    }
    for (const Group& g : inventory.groups) {
      if (!GlobMatch(term, g.name)) continue;
      for (const std::string& name : g.members) add_host(name);
    }
  } else {
    auto names = ExpandHostPattern(term);
    if (!names.ok()) return Status::InvalidArgument("--limit: " + names.status().message());
    for (const std::string& name : *names) add_host(name);
  }
  if (out.empty()) {
    std::vector<std::string> known;
    for (const Host& h : inventory.hosts) known.push_back(h.name);
    for (const Group& g : inventory.groups) known.push_back(g.name);
    return Status::InvalidArgument("--limit: '" + term + "' matches no host or group" + DidYouMean(term, known));
  }
  return out;
}

}  // namespace

Result<std::vector<const Host*>> SelectHosts(const Inventory& inventory, std::string_view pattern) {
  std::set<size_t> included, excluded;
  bool any_positive = false;
  if (Trim(pattern).empty()) {
    for (size_t i = 0; i < inventory.hosts.size(); ++i) included.insert(i);
  }
  for (const std::string& raw : SplitHostList(pattern)) {
    if (raw.empty()) continue;
    bool exclude = raw[0] == '!';
    std::string term = exclude ? raw.substr(1) : raw;
    auto resolved = Resolve(inventory, term);
    if (!resolved.ok()) return resolved.status();
    (exclude ? excluded : included).insert(resolved->begin(), resolved->end());
    any_positive = any_positive || !exclude;
  }
  if (!any_positive) {
    for (size_t i = 0; i < inventory.hosts.size(); ++i) included.insert(i);
  }
  std::vector<const Host*> selected;
  for (size_t i : included) {
    if (!excluded.count(i)) selected.push_back(&inventory.hosts[i]);
  }
  if (selected.empty()) return Status::InvalidArgument("--limit '" + std::string(pattern) + "' selects no host");
  return selected;
}

}  // namespace clusterctl
