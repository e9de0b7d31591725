// StepRecords: the steps and file_backups tables.
#include "controller/state/step_records.h"

#include "controller/state/row_mapping.h"

namespace clusterctl {

Result<std::map<std::string, std::map<std::string, StepResult>>> StepRecords::LoadLastStepResults() {
  std::map<std::string, std::map<std::string, StepResult>> results;
  Status read = ForEachRow(
      db(),
      "SELECT s.host, s.role, s.step_id, s.input_hash, s.status FROM steps s "
      "JOIN (SELECT host, role, step_id, max(run_id) AS run_id FROM steps GROUP BY host, role, step_id) last "
      "ON s.host = last.host AND s.role = last.role AND s.step_id = last.step_id AND s.run_id = last.run_id",
      [&](const SqliteStatement& row) -> Status {
        std::string host, role, step_id;
        StepResult result;
        Status read = ReadColumns(row, host, role, step_id, result.input_hash, result.status);
        if (!read.ok()) return read.WithContext(host + " " + role + "/" + step_id);
        results[host][role + "/" + step_id] = std::move(result);
        return Status::Ok();
      });
  if (!read.ok()) return read;
  return results;
}

Status StepRecords::RecordStep(const StepRecord& s) {
  return ExecuteSql(db(),
                    "INSERT OR REPLACE INTO steps (run_id, host, role, step_id, input_hash, status, changed, "
                    "started_at, finished_at, output_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    s.run_id, s.host, s.role, s.step_id, s.input_hash, s.status, s.changed, s.started_at,
                    s.finished_at, s.output_summary);
}

Result<std::vector<StepRecord>> StepRecords::StepsOfRun(int64_t run_id) {
  return SelectRows(
      db(),
      "SELECT host, role, step_id, input_hash, status, changed, started_at, finished_at, output_summary FROM steps "
      "WHERE run_id = ? ORDER BY host, started_at",
      [&](const SqliteStatement& row) -> Result<StepRecord> {
        StepRecord s;
        s.run_id = run_id;
        Status read = ReadColumns(row, s.host, s.role, s.step_id, s.input_hash, s.status, s.changed, s.started_at,
                                  s.finished_at, s.output_summary);
        if (!read.ok()) return read.WithContext(s.host + " " + s.role + "/" + s.step_id);
        return s;
      },
      run_id);
}

Result<std::vector<std::string>> StepRecords::RolesRecordedFor(const std::string& host) {
  return SelectRows(db(), "SELECT DISTINCT role FROM steps WHERE host = ? ORDER BY role",
                    [](const SqliteStatement& row) { return row.Text(0); }, host);
}

Status StepRecords::SaveFileBackup(int64_t run_id, const std::string& host, const std::string& path,
                                   const std::string& content) {
  CLUSTERCTL_RETURN_IF_ERROR(
      ExecuteSql(db(), "INSERT INTO file_backups (run_id, host, path, content, at) VALUES (?, ?, ?, ?, ?)", run_id,
                 host, path, SqlBlob{content}, NowMs()));
  // The newest kFileBackupsKept of each file; a file rewritten on every
  // deploy must not grow the state without bound.
  return ExecuteSql(db(),
                    "DELETE FROM file_backups WHERE host = ?1 AND path = ?2 AND id NOT IN "
                    "(SELECT id FROM file_backups WHERE host = ?1 AND path = ?2 ORDER BY id DESC LIMIT ?3)",
                    host, path, kFileBackupsKept);
}

}  // namespace clusterctl
