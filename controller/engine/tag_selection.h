// --tags / --skip-tags of deploy and plan, as Ansible's: a step's tags are
// its own and its role's; with --tags only steps having one of them run,
// and --skip-tags leaves out steps having any of its tags (it wins over
// --tags). Handlers are not selected by tags: a selected step that changes
// still notifies them, as Ansible runs notified handlers. Dependencies are
// not pulled in: roles stay as --roles and the inventory give them, and
// only their selected steps run.
#pragma once

#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "controller/catalog/role.h"

namespace clusterctl {

struct TagSelection {
  std::vector<std::string> tags;       // --tags: empty selects every step
  std::vector<std::string> skip_tags;  // --skip-tags

  bool empty() const { return tags.empty() && skip_tags.empty(); }
  // Whether `step` of `role` runs.
  bool Selects(const Role& role, const RoleStep& step) const;
};

// Every tag the catalog's roles and steps carry, sorted.
std::vector<std::string> CatalogTags(const Catalog& catalog);

// A message for each tag of `given` that no role or step of the catalog
// carries, with a suggestion and the known tags.
std::vector<std::string> UnknownTags(const Catalog& catalog, const std::vector<std::string>& given);

// An unknown tag in either list is an error at "--tags"/"--skip-tags", with
// a suggestion and the known tags.
void CheckTagNames(const Catalog& catalog, const TagSelection& selection, Diagnostics& diagnostics);

}  // namespace clusterctl
