// StateStore: step results, intents, host outcomes and file backups — the
// records the convergence engine resumes from.
#include "common/json_text.h"
#include "controller/state/row_mapping.h"
#include "controller/state/state_store.h"

namespace clusterctl {

Result<std::map<std::string, std::map<std::string, StepResult>>> StateStore::LoadLastStepResults() {
  std::map<std::string, std::map<std::string, StepResult>> results;
  Status read = ForEachRow(
      *db_,
      "SELECT s.host, s.role, s.step_id, s.input_hash, s.status FROM steps s "
      "JOIN (SELECT host, role, step_id, max(run_id) AS run_id FROM steps GROUP BY host, role, step_id) last "
      "ON s.host = last.host AND s.role = last.role AND s.step_id = last.step_id AND s.run_id = last.run_id",
      [&](const SqliteStatement& row) {
        std::string host, role, step_id;
        StepResult result;
        ReadColumns(row, host, role, step_id, result.input_hash, result.status);
        results[host][role + "/" + step_id] = std::move(result);
      });
  if (!read.ok()) return read;
  return results;
}

Status StateStore::RecordStep(const StepRecord& s) {
  return ExecuteSql(*db_,
                    "INSERT OR REPLACE INTO steps (run_id, host, role, step_id, input_hash, status, changed, started_at, "
                    "finished_at, output_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    s.run_id, s.host, s.role, s.step_id, s.input_hash, s.status, s.changed, s.started_at,
                    s.finished_at, s.output_summary);
}

Result<std::vector<Intent>> StateStore::LoadOpenIntents() {
  return SelectRows(*db_, "SELECT id, host, kind, target, reason, detail FROM intents WHERE done_at IS NULL ORDER BY id",
                    [](const SqliteStatement& row) {
                      Intent i;
                      std::optional<std::string> detail;
                      ReadColumns(row, i.id, i.host, i.kind, i.target, i.reason, detail);
                      if (detail) i.detail = nlohmann::json::parse(*detail, nullptr, false);
                      return i;
                    });
}

Result<int64_t> StateStore::OpenIntent(int64_t run_id, const std::string& host, const std::string& kind,
                                       const std::string& target, const std::string& reason) {
  std::optional<int64_t> open;
  CLUSTERCTL_RETURN_IF_ERROR(ForEachRow(
      *db_, "SELECT id FROM intents WHERE host = ? AND kind = ? AND target = ? AND done_at IS NULL",
      [&](const SqliteStatement& row) { if (!open) ReadColumns(row, open); }, host, kind, target));
  if (open) return *open;
  CLUSTERCTL_RETURN_IF_ERROR(ExecuteSql(
      *db_, "INSERT INTO intents (host, kind, target, reason, created_run_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      host, kind, target, reason, run_id, NowMs()));
  return db_->LastInsertId();
}

Status StateStore::SetIntentDetail(int64_t intent_id, const nlohmann::json& detail) {
  return ExecuteSql(*db_, "UPDATE intents SET detail = ? WHERE id = ?", JsonText(detail), intent_id);
}

Status StateStore::CloseIntent(int64_t intent_id, int64_t run_id) {
  return ExecuteSql(*db_, "UPDATE intents SET done_run_id = ?, done_at = ? WHERE id = ?", run_id, NowMs(), intent_id);
}

Status StateStore::DeleteIntent(int64_t intent_id) {
  return ExecuteSql(*db_, "DELETE FROM intents WHERE id = ? AND done_at IS NULL", intent_id);
}

Status StateStore::RecordHostOutcome(const std::string& host, const std::string& status, int64_t run_id,
                                     const std::optional<std::string>& error) {
  return ExecuteSql(
      *db_,
      "INSERT INTO hosts (name, first_seen_at, status, last_run_id, last_status_at, last_error) VALUES (?1, ?4, ?2, ?3, ?4, ?5) "
      "ON CONFLICT (name) DO UPDATE SET status = ?2, last_run_id = ?3, last_status_at = ?4, last_error = ?5",
      host, status, run_id, NowMs(), error);
}

Status StateStore::MarkHostRemoved(const std::string& host, int64_t run_id) {
  return ExecuteSql(
      *db_,
      "UPDATE hosts SET status = 'removed', removed_at = ?1, last_run_id = ?2, last_status_at = ?1, last_error = NULL "
      "WHERE name = ?3 AND in_inventory = 0",
      NowMs(), run_id, host);
}

Result<std::vector<std::string>> StateStore::RolesRecordedFor(const std::string& host) {
  return SelectRows(*db_, "SELECT DISTINCT role FROM steps WHERE host = ? ORDER BY role",
                    [](const SqliteStatement& row) { return row.Text(0); }, host);
}

Status StateStore::SetHostDrifted(const std::string& host, bool drifted) {
  return ExecuteSql(*db_, "UPDATE hosts SET drifted = ? WHERE name = ?", drifted, host);
}

Result<std::set<std::string>> StateStore::KnownSecrets() {
  std::set<std::string> names;
  Status read = ForEachRow(*db_, "SELECT name FROM secrets", [&](const SqliteStatement& row) { names.insert(row.Text(0)); });
  if (!read.ok()) return read;
  return names;
}

Status StateStore::RecordSecrets(int64_t run_id, const std::vector<std::string>& names) {
  auto insert = db_->Prepare("INSERT OR IGNORE INTO secrets (name, recorded_at, run_id) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.status();
  for (const std::string& name : names) {
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(*insert, name, NowMs(), run_id));
  }
  return Status::Ok();
}

Status StateStore::SaveFileBackup(int64_t run_id, const std::string& host, const std::string& path,
                                  const std::string& content) {
  CLUSTERCTL_RETURN_IF_ERROR(ExecuteSql(*db_,
                                        "INSERT INTO file_backups (run_id, host, path, content, at) VALUES (?, ?, ?, ?, ?)",
                                        run_id, host, path, SqlBlob{content}, NowMs()));
  // The newest kFileBackupsKept of each file; a file rewritten on every
  // deploy must not grow the state without bound.
  return ExecuteSql(*db_,
                    "DELETE FROM file_backups WHERE host = ?1 AND path = ?2 AND id NOT IN "
                    "(SELECT id FROM file_backups WHERE host = ?1 AND path = ?2 ORDER BY id DESC LIMIT ?3)",
                    host, path, kFileBackupsKept);
}

Result<std::vector<StepRecord>> StateStore::StepsOfRun(int64_t run_id) {
  return SelectRows(
      *db_,
      "SELECT host, role, step_id, input_hash, status, changed, started_at, finished_at, output_summary FROM steps "
      "WHERE run_id = ? ORDER BY host, started_at",
      [&](const SqliteStatement& row) {
        StepRecord s;
        s.run_id = run_id;
        ReadColumns(row, s.host, s.role, s.step_id, s.input_hash, s.status, s.changed, s.started_at, s.finished_at,
                    s.output_summary);
        return s;
      },
      run_id);
}

Result<std::vector<nlohmann::json>> StateStore::EventsOfRun(int64_t run_id) {
  return SelectRows(
      *db_, "SELECT at, host, level, kind, message FROM events WHERE run_id = ? ORDER BY id",
      [](const SqliteStatement& row) {
        int64_t at = 0;
        std::optional<std::string> host;
        std::string level, kind, message;
        ReadColumns(row, at, host, level, kind, message);
        return nlohmann::json{{"at", at}, {"host", host.value_or("")}, {"level", level}, {"kind", kind},
                              {"message", message}};
      },
      run_id);
}

}  // namespace clusterctl
