// Facts: the latest facts of each host (docs/state.md, table facts).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/state/state_records.h"

namespace clusterctl {

struct StoredFacts {
  int64_t gathered_at = 0;
  nlohmann::json facts;
};

class FactsRecords : protected StateRecords {
 public:
  Status SaveFacts(int64_t run_id, const std::vector<std::pair<std::string, nlohmann::json>>& facts);
  // Corruption when a host's stored facts are not JSON.
  Result<std::map<std::string, StoredFacts>> LoadFacts();

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
