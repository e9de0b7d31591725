#include "controller/validate/catalogue.h"

#include <algorithm>

#include "controller/validate/check_spec.h"

namespace clusterctl {

const std::vector<CheckInfo>& CheckCatalogue() {
  // The registered specs (check_spec.h), one file each under checks/.
  static const std::vector<CheckInfo> catalogue = [] {
    std::vector<CheckInfo> out;
    for (const CheckSpec* spec : CheckSpecs()) out.push_back({spec->name.c_str(), spec->scope, spec->summary.c_str()});
    return out;
  }();
  return catalogue;
}

const std::vector<std::string>& AllCheckNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const CheckInfo& c : CheckCatalogue()) out.push_back(c.name);
    return out;
  }();
  return names;
}

std::vector<std::string> CheckPrefixes() {
  std::vector<std::string> prefixes;
  for (const std::string& name : AllCheckNames()) {
    size_t dot = name.find('.');
    if (dot == std::string::npos) continue;
    std::string prefix = name.substr(0, dot);
    if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end()) prefixes.push_back(prefix);
  }
  return prefixes;
}

}  // namespace clusterctl
