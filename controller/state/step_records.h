// Steps: the result of every step a deploy ran, what the next deploy
// resumes from, and the backups of the files steps replaced (docs/state.md,
// tables steps and file_backups). The writes run inside the caller's
// transaction: the engine's StateWriter groups them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "controller/state/state_records.h"
#include "controller/state/stored_words.h"

namespace clusterctl {

struct StepResult {
  std::string input_hash;
  StepStatus status = StepStatus::kOk;
};

struct StepRecord {
  int64_t run_id = 0;
  std::string host, role, step_id, input_hash;
  StepStatus status = StepStatus::kOk;
  std::string output_summary;
  bool changed = false;
  int64_t started_at = 0, finished_at = 0;
};

class StepRecords : protected StateRecords {
 public:
  // Last result of every step identity: host -> "role/step" -> result.
  Result<std::map<std::string, std::map<std::string, StepResult>>> LoadLastStepResults();
  Status RecordStep(const StepRecord& step);
  Result<std::vector<StepRecord>> StepsOfRun(int64_t run_id);
  // Roles that ever converged steps on a host (what it may still carry).
  Result<std::vector<std::string>> RolesRecordedFor(const std::string& host);

  // Keeps the newest kFileBackupsKept backups of each host's file.
  static constexpr int kFileBackupsKept = 5;
  Status SaveFileBackup(int64_t run_id, const std::string& host, const std::string& path, const std::string& content);

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
