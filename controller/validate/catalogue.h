// The check catalogue: every registered check spec (check_spec.h), in
// report order, with its scope and what it asserts; `clusterctl checks`
// prints it, --checks accepts its names and prefixes.
#pragma once

#include <string>
#include <vector>

#include "controller/validate/check_result.h"

namespace clusterctl {

// The check catalogue: every check, in report order, with its scope and
// what it asserts (`clusterctl checks` prints it).
struct CheckInfo {
  const char* name;
  CheckScope scope;
  const char* summary;
};
const std::vector<CheckInfo>& CheckCatalogue();
// The catalogue's names, and their prefixes ("gpu", "ib", ...) that --checks accepts.
const std::vector<std::string>& AllCheckNames();
std::vector<std::string> CheckPrefixes();

}  // namespace clusterctl
