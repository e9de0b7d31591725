#include <algorithm>

#include "common/strings.h"
#include "controller/validate/catalogue.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/check_selection.h"

namespace clusterctl {
namespace {

bool NameMatches(const std::string& check, const std::string& name) {
  return check == name || check.rfind(name + ".", 0) == 0;
}

bool IsAcceptance(const std::string& check) {
  const CheckSpec* spec = FindCheckSpec(check);
  return spec != nullptr && spec->level == CheckLevel::kAcceptance;
}

// Whether `name` selects checks, but only acceptance ones.
bool OnlyAcceptance(const std::string& name) {
  const std::vector<std::string>& known = AllCheckNames();
  return std::none_of(known.begin(), known.end(),
                      [&](const std::string& k) { return NameMatches(k, name) && !IsAcceptance(k); });
}

}  // namespace

Result<CheckSelection> CheckSelection::Parse(const std::vector<std::string>& names, CheckLevel level) {
  CheckSelection selection;
  selection.level_ = level;
  const std::vector<std::string>& known = AllCheckNames();
  for (const std::string& raw : names) {
    std::string name(Trim(raw));
    bool exclude = !name.empty() && name[0] == '!';
    if (exclude) name = std::string(Trim(name.substr(1)));
    if (name.empty()) continue;
    bool matches = std::any_of(known.begin(), known.end(), [&](const std::string& k) {
      return k == name || k.rfind(name + ".", 0) == 0;
    });
    if (!matches) {
      std::vector<std::string> candidates = known;
      for (const std::string& prefix : CheckPrefixes()) candidates.push_back(prefix);
      return Status::InvalidArgument("--checks: unknown check '" + name + "'" + DidYouMean(name, candidates) +
                                     "; known: " + Join(known, ", ") + " (or a prefix: " + Join(CheckPrefixes(), ", ") + ")");
    }
    if (!exclude && level == CheckLevel::kFunctional && OnlyAcceptance(name)) {
      return Status::InvalidArgument("--checks: '" + name + "' is an acceptance check: it runs with --level acceptance");
    }
    (exclude ? selection.excluded_ : selection.chosen_).insert(name);
  }
  return selection;
}

bool CheckSelection::Has(const std::string& check) const {
  auto matches = [&](const std::set<std::string>& names) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& c) { return NameMatches(check, c); });
  };
  if (level_ == CheckLevel::kFunctional && IsAcceptance(check)) return false;
  return (chosen_.empty() || matches(chosen_)) && !matches(excluded_);
}

bool CheckSelection::HasAny(const std::vector<std::string>& checks) const {
  return std::any_of(checks.begin(), checks.end(), [&](const std::string& c) { return Has(c); });
}

std::set<std::string> NeededChecks(const CheckSelection& selection) {
  std::set<std::string> needed;
  std::vector<const CheckSpec*> todo;
  for (const CheckSpec* spec : CheckSpecs()) {
    if (selection.Has(spec->name)) todo.push_back(spec);
  }
  while (!todo.empty()) {
    const CheckSpec* spec = todo.back();
    todo.pop_back();
    if (!needed.insert(spec->name).second) continue;
    for (const Prerequisite& p : spec->prerequisites) todo.push_back(FindCheckSpec(p.check));
  }
  return needed;
}

Result<std::vector<std::string>> NodeChecksSelected(const std::vector<std::string>& names) {
  auto selection = CheckSelection::Parse(names);
  if (!selection.ok()) return selection.status();
  std::vector<std::string> checks;
  for (const CheckSpec* spec : CheckSpecs()) {
    if (selection->Has(spec->name) && RunsOnNodeAlone(*spec)) checks.push_back(spec->name);
  }
  return checks;
}

}  // namespace clusterctl
