// IntentRecords: the intents table.
#include "controller/state/intent_records.h"

#include "common/json_text.h"
#include "controller/state/row_mapping.h"

namespace clusterctl {

Result<std::vector<Intent>> IntentRecords::LoadOpenIntents() {
  return SelectRows(
      db(), "SELECT id, host, kind, target, reason, detail FROM intents WHERE done_at IS NULL ORDER BY id",
      [](const SqliteStatement& row) {
        Intent i;
        std::optional<std::string> detail;
        ReadColumns(row, i.id, i.host, i.kind, i.target, i.reason, detail);
        if (detail) i.detail = nlohmann::json::parse(*detail, nullptr, false);
        return i;
      });
}

Result<int64_t> IntentRecords::OpenIntent(int64_t run_id, const std::string& host, const std::string& kind,
                                          const std::string& target, const std::string& reason) {
  std::optional<int64_t> open;
  CLUSTERCTL_RETURN_IF_ERROR(ForEachRow(
      db(), "SELECT id FROM intents WHERE host = ? AND kind = ? AND target = ? AND done_at IS NULL",
      [&](const SqliteStatement& row) { if (!open) ReadColumns(row, open); }, host, kind, target));
  if (open) return *open;
  CLUSTERCTL_RETURN_IF_ERROR(ExecuteSql(
      db(), "INSERT INTO intents (host, kind, target, reason, created_run_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      host, kind, target, reason, run_id, NowMs()));
  return db().LastInsertId();
}

Status IntentRecords::SetIntentDetail(int64_t intent_id, const nlohmann::json& detail) {
  return ExecuteSql(db(), "UPDATE intents SET detail = ? WHERE id = ?", JsonText(detail), intent_id);
}

Status IntentRecords::CloseIntent(int64_t intent_id, int64_t run_id) {
  return ExecuteSql(db(), "UPDATE intents SET done_run_id = ?, done_at = ? WHERE id = ?", run_id, NowMs(), intent_id);
}

Status IntentRecords::DeleteIntent(int64_t intent_id) {
  return ExecuteSql(db(), "DELETE FROM intents WHERE id = ? AND done_at IS NULL", intent_id);
}

}  // namespace clusterctl
