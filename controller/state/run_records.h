// Runs: one row per command that talked to hosts or changed the state
// (docs/state.md, table runs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/state/state_records.h"
#include "controller/state/stored_words.h"

namespace clusterctl {

// The run's status as history, the daemon and --json say it: its stored word.
const char* ToString(RunStatus status);

struct RunRecord {
  int64_t id = 0;
  std::string kind;
  std::string command;
  std::string controller_host;
  int pid = 0;
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  RunStatus status = RunStatus::kRunning;
  std::optional<std::string> summary;
  std::optional<std::string> extra_vars;  // JSON object: -e/--extra-vars; null when none
};

class RunRecords : protected StateRecords {
 public:
  // Marks runs left 'running' by dead processes 'interrupted' (only a lock
  // holder can be running, and the caller now holds the lock).
  // REQUIRES: the state opened for writing (FailedPrecondition otherwise).
  Result<int64_t> BeginRun(const std::string& kind, const std::string& command);
  Status FinishRun(int64_t run_id, RunStatus status, const nlohmann::json& summary);
  // The run's -e/--extra-vars (a JSON object), for history.
  Status RecordRunExtraVars(int64_t run_id, const nlohmann::json& extra_vars);
  Result<std::vector<RunRecord>> ListRuns(int limit, int64_t only_id = 0);  // only_id: that run alone

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
