// Intents: follow-ups (handlers, reboots) recorded before the change that
// owes them and closed once done, so a run that stops in between leaves
// them to the next (docs/state.md, table intents). The writes run inside
// the caller's transaction: the engine's StateWriter groups them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/state/state_records.h"

namespace clusterctl {

struct Intent {
  int64_t id = 0;
  std::string host;
  std::string kind;    // handler | reboot
  std::string target;  // "role/handler name"
  std::string reason;
  nlohmann::json detail;  // progress (e.g. the service invocation id before a restart)
};

class IntentRecords : protected StateRecords {
 public:
  Result<std::vector<Intent>> LoadOpenIntents();
  // Opens an intent (or returns the open one with the same host/kind/target).
  Result<int64_t> OpenIntent(int64_t run_id, const std::string& host, const std::string& kind,
                             const std::string& target, const std::string& reason);
  Status SetIntentDetail(int64_t intent_id, const nlohmann::json& detail);
  Status CloseIntent(int64_t intent_id, int64_t run_id);
  Status DeleteIntent(int64_t intent_id);

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
