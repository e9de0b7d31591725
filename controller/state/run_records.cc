// RunRecords: the runs table.
#include "controller/state/run_records.h"

#include "common/json_text.h"
#include "controller/state/row_mapping.h"

namespace clusterctl {

const char* ToString(RunStatus status) { return StoredWord(status).data(); }  // the words are literals

Result<int64_t> RunRecords::BeginRun(const std::string& kind, const std::string& command) {
  if (!writable()) return Status::FailedPrecondition("BeginRun needs the state opened for writing");
  auto transaction = SqliteTransaction::Begin(db());
  if (!transaction.ok()) return transaction.status();
  CLUSTERCTL_RETURN_IF_ERROR(
      ExecuteSql(db(), "UPDATE runs SET status = ?1 WHERE status = ?2", RunStatus::kInterrupted, RunStatus::kRunning));
  LockHolder me = LockHolder::Current(NowMs(), command);
  CLUSTERCTL_RETURN_IF_ERROR(
      ExecuteSql(db(), "INSERT INTO runs (kind, command, controller_host, pid, started_at) VALUES (?, ?, ?, ?, ?)",
                 kind, command, me.host, me.pid, me.started_at_ms));
  int64_t id = db().LastInsertId();
  CLUSTERCTL_RETURN_IF_ERROR((*transaction)->Commit());
  return id;
}

Status RunRecords::FinishRun(int64_t run_id, RunStatus status, const nlohmann::json& summary) {
  return ExecuteSql(db(), "UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE id = ?", status,
                    NowMs(), JsonText(summary), run_id);
}

Status RunRecords::RecordRunExtraVars(int64_t run_id, const nlohmann::json& extra_vars) {
  return ExecuteSql(db(), "UPDATE runs SET extra_vars = ? WHERE id = ?", JsonText(extra_vars), run_id);
}

Result<std::vector<RunRecord>> RunRecords::ListRuns(int limit, int64_t only_id) {
  return SelectRows(
      db(),
      "SELECT id, kind, command, controller_host, pid, started_at, finished_at, status, summary, extra_vars "
      "FROM runs WHERE ? = 0 OR id = ? ORDER BY id DESC LIMIT ?",
      [](const SqliteStatement& row) -> Result<RunRecord> {
        RunRecord r;
        Status read = ReadColumns(row, r.id, r.kind, r.command, r.controller_host, r.pid, r.started_at, r.finished_at,
                                  r.status, r.summary, r.extra_vars);
        if (!read.ok()) return read.WithContext("run " + std::to_string(r.id));
        return r;
      },
      only_id, only_id, limit);
}

}  // namespace clusterctl
