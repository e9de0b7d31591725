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

std::vector<std::string> UnknownTags(const Catalog& catalog, const std::vector<std::string>& given) {
  std::vector<std::string> problems;
  const std::vector<std::string> known = given.empty() ? std::vector<std::string>{} : CatalogTags(catalog);
  for (const std::string& tag : given) {
    if (std::find(known.begin(), known.end(), tag) != known.end()) continue;
    problems.push_back("unknown tag '" + tag + "'" + DidYouMean(tag, known) + "; tags: " + Join(known, ", "));
  }
  return problems;
}

void CheckTagNames(const Catalog& catalog, const TagSelection& selection, Diagnostics& diagnostics) {
  for (std::string& problem : UnknownTags(catalog, selection.tags)) diagnostics.Error({"--tags", 0, 0}, std::move(problem));
  for (std::string& problem : UnknownTags(catalog, selection.skip_tags)) {
    diagnostics.Error({"--skip-tags", 0, 0}, std::move(problem));
  }
}

}  // namespace clusterctl
