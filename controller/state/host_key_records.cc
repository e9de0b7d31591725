// HostKeyRecords: accepted host keys (tables hosts and jump_host_keys).
#include "controller/state/host_key_records.h"

#include "controller/state/row_mapping.h"

namespace clusterctl {

Result<std::map<std::string, StoredHostKey>> HostKeyRecords::LoadHostKeys() {
  std::map<std::string, StoredHostKey> keys;
  auto read_key = [&](const SqliteStatement& row) {
    std::string name;
    StoredHostKey key;
    ReadColumns(row, name, key.type, key.sha256);
    keys[name] = std::move(key);
  };
  CLUSTERCTL_RETURN_IF_ERROR(ForEachRow(
      db(), "SELECT name, host_key_type, host_key_sha256 FROM hosts WHERE host_key_sha256 IS NOT NULL", read_key));
  CLUSTERCTL_RETURN_IF_ERROR(ForEachRow(db(), "SELECT endpoint, key_type, key_sha256 FROM jump_host_keys", read_key));
  return keys;
}

Status HostKeyRecords::RecordHostKeys(const std::vector<std::pair<std::string, StoredHostKey>>& keys) {
  if (keys.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(db());
  if (!transaction.ok()) return transaction.status();
  auto host = db().Prepare(
      "INSERT INTO hosts (name, first_seen_at, host_key_type, host_key_sha256, host_key_accepted_at) "
      "VALUES (?1, ?4, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET host_key_type = ?2, host_key_sha256 = ?3, "
      "host_key_accepted_at = ?4");
  auto jump = db().Prepare(
      "INSERT INTO jump_host_keys (endpoint, key_type, key_sha256, accepted_at) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (endpoint) DO UPDATE SET key_type = ?2, key_sha256 = ?3, accepted_at = ?4");
  if (!host.ok()) return host.status();
  if (!jump.ok()) return jump.status();
  for (const auto& [name, key] : keys) {
    SqliteStatement& statement = name.rfind("jump:", 0) == 0 ? *jump : *host;
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(statement, name, key.type, key.sha256, NowMs()));
  }
  return (*transaction)->Commit();
}

Status HostKeyRecords::ForgetHostKey(const std::string& name) {
  CLUSTERCTL_RETURN_IF_ERROR(ExecuteSql(
      db(),
      name.rfind("jump:", 0) == 0 ? "DELETE FROM jump_host_keys WHERE endpoint = ?"
                                  : "UPDATE hosts SET host_key_type = NULL, host_key_sha256 = NULL, "
                                    "host_key_accepted_at = NULL WHERE name = ? AND host_key_sha256 IS NOT NULL",
      name));
  if (db().Changes() == 0) return Status::NotFound("no recorded host key for " + name);
  return Status::Ok();
}

}  // namespace clusterctl
