// Which checks a validation runs (`--checks`).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "controller/validate/check_spec.h"

namespace clusterctl {

// Which checks run: names or prefixes ("slurm", "gpu.ecc"), "!name" to leave
// one out ("!nccl"); no positive name: every check of the level. The
// acceptance checks run only at CheckLevel::kAcceptance (with every
// functional check first); the functional level never selects them.
class CheckSelection {
 public:
  // An unknown name is an error naming the known ones; so is a name that
  // selects only acceptance checks at the functional level.
  static Result<CheckSelection> Parse(const std::vector<std::string>& names,
                                      CheckLevel level = CheckLevel::kFunctional);
  bool Has(const std::string& check) const;
  bool HasAny(const std::vector<std::string>& checks) const;

 private:
  std::set<std::string> chosen_;    // empty: every check
  std::set<std::string> excluded_;
  CheckLevel level_ = CheckLevel::kFunctional;
};

// The checks a selection needs judged: the selected ones and, transitively,
// their prerequisites (judged, reported only when selected themselves).
std::set<std::string> NeededChecks(const CheckSelection& selection);

// The checks `names` selects (--checks' syntax) that a node judges alone
// (RunsOnNodeAlone), in report order; an error for an unknown name.
Result<std::vector<std::string>> NodeChecksSelected(const std::vector<std::string>& names);

}  // namespace clusterctl
