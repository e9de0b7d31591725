#include "controller/engine/tag_selection.h"

#include <algorithm>
#include <set>

#include "common/strings.h"

namespace clusterctl {
namespace {

bool HasAny(const Role& role, const RoleStep& step, const std::vector<std::string>& wanted) {
  auto carried = [&](const std::string& tag) {
    return std::find(role.tags.begin(), role.tags.end(), tag) != role.tags.end() ||
           std::find(step.tags.begin(), step.tags.end(), tag) != step.tags.end();
  };
  return std::any_of(wanted.begin(), wanted.end(), carried);
}

void CheckList(const std::vector<std::string>& given, const char* option, const std::vector<std::string>& known,
               Diagnostics& diagnostics) {
  for (const std::string& tag : given) {
    if (std::find(known.begin(), known.end(), tag) != known.end()) continue;
    diagnostics.Error({option, 0, 0}, "unknown tag '" + tag + "'" + DidYouMean(tag, known) + "; tags: " + Join(known, ", "));
  }
}

}  // namespace

bool TagSelection::Selects(const Role& role, const RoleStep& step) const {
  if (HasAny(role, step, skip_tags)) return false;
  return tags.empty() || HasAny(role, step, tags);
}

std::vector<std::string> CatalogTags(const Catalog& catalog) {
  std::set<std::string> tags;
  for (const auto& [name, role] : catalog.roles()) {
    tags.insert(role.tags.begin(), role.tags.end());
    for (const RoleStep& step : role.steps) tags.insert(step.tags.begin(), step.tags.end());
  }
  return {tags.begin(), tags.end()};
}

void CheckTagNames(const Catalog& catalog, const TagSelection& selection, Diagnostics& diagnostics) {
  const std::vector<std::string> known = CatalogTags(catalog);
  CheckList(selection.tags, "--tags", known, diagnostics);
  CheckList(selection.skip_tags, "--skip-tags", known, diagnostics);
}

}  // namespace clusterctl
