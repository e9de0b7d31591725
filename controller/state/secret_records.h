// Secrets (by name only) the state's secrets/ holds (docs/state.md, table
// secrets): a missing one is then refused instead of silently generated
// anew (SecretVault::Prepare).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "controller/state/state_records.h"

namespace clusterctl {

class SecretRecords : protected StateRecords {
 public:
  Result<std::set<std::string>> KnownSecrets();
  Status RecordSecrets(int64_t run_id, const std::vector<std::string>& names);

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
