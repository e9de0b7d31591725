// Validation results: one row per check result (docs/state.md, table validations).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "controller/state/state_records.h"
#include "controller/state/stored_words.h"

namespace clusterctl {

struct StoredValidation {
  int64_t run_id = 0;
  std::string check;
  CheckScope scope = CheckScope::kNode;
  std::string subject;
  CheckOutcome result = CheckOutcome::kPass;
  std::string measured, threshold, detail;
  std::vector<std::string> evidence;
  int64_t at = 0;
};

class ValidationRecords : protected StateRecords {
 public:
  Status SaveValidations(int64_t run_id, const std::vector<StoredValidation>& results);
  Result<std::vector<StoredValidation>> ValidationsOfRun(int64_t run_id);
  // For each node subject, the results of the latest validate run that checked it.
  Result<std::map<std::string, std::vector<StoredValidation>>> LatestValidationPerNode();
  // For each check and subject of a wider scope than one node (the cluster,
  // the monitoring host's targets), the result of the latest run that checked it.
  Result<std::vector<StoredValidation>> LatestClusterValidations();

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
