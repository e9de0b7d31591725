// Events: the runs' journal, also what `history` shows (docs/state.md, table events).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/state/state_records.h"

namespace clusterctl {

class EventRecords : protected StateRecords {
 public:
  Status RecordEvent(std::optional<int64_t> run_id, const std::optional<std::string>& host, const std::string& level,
                     const std::string& kind, const std::string& message);
  // A run's events in order, each {"at", "host", "level", "kind", "message"}.
  Result<std::vector<nlohmann::json>> EventsOfRun(int64_t run_id);

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
