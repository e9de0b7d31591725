// A validation's results in the state store: the conversion to and from the
// rows of `validations`, and recording a whole run (results and the facts it
// gathered), for the command line and the daemon alike.
#pragma once

#include <map>
#include <string>

#include "controller/state/state_store.h"
#include "controller/validate/check_result.h"
#include "controller/validate/validation_run.h"

namespace clusterctl {

StoredValidation ToStoredValidation(const CheckResult& result);
CheckResult FromStoredValidation(const StoredValidation& stored);

// pass / fail / skip counts of `results`.
std::map<std::string, int> CountOutcomes(const std::vector<CheckResult>& results);

// Stores the results and the gathered facts under `run_id`; the first problem, if any.
Status RecordValidation(StateStore& state, int64_t run_id, const ValidationOutcome& outcome);

}  // namespace clusterctl
