// SecretRecords: the secrets table.
#include "controller/state/secret_records.h"

#include "controller/state/row_mapping.h"

namespace clusterctl {

Result<std::set<std::string>> SecretRecords::KnownSecrets() {
  std::set<std::string> names;
  Status read =
      ForEachRow(db(), "SELECT name FROM secrets", [&](const SqliteStatement& row) { names.insert(row.Text(0)); });
  if (!read.ok()) return read;
  return names;
}

Status SecretRecords::RecordSecrets(int64_t run_id, const std::vector<std::string>& names) {
  auto insert = db().Prepare("INSERT OR IGNORE INTO secrets (name, recorded_at, run_id) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.status();
  for (const std::string& name : names) {
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(*insert, name, NowMs(), run_id));
  }
  return Status::Ok();
}

}  // namespace clusterctl
