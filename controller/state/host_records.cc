// StateStore: the hosts table and host keys.
#include "controller/state/row_mapping.h"
#include "controller/state/state_store.h"

namespace clusterctl {

Result<std::vector<HostRecord>> StateStore::ListHosts() {
  return SelectRows(
      *db_,
      "SELECT name, address, status, in_inventory, first_seen_at, last_run_id, last_status_at, last_error, "
      "host_key_type, host_key_sha256, drifted, removed_at, unreachable_since, unreachable_error FROM hosts ORDER BY name",
      [](const SqliteStatement& row) {
        HostRecord h;
        ReadColumns(row, h.name, h.address, h.status, h.in_inventory, h.first_seen_at, h.last_run_id, h.last_status_at,
                    h.last_error, h.host_key_type, h.host_key_sha256, h.drifted, h.removed_at, h.unreachable_since,
                    h.unreachable_error);
        return h;
      });
}

Status StateStore::SyncInventoryHosts(const std::vector<std::pair<std::string, std::string>>& names_and_addresses) {
  auto transaction = SqliteTransaction::Begin(*db_);
  if (!transaction.ok()) return transaction.status();
  CLUSTERCTL_RETURN_IF_ERROR(db_->Exec("UPDATE hosts SET in_inventory = 0"));
  auto upsert = db_->Prepare(
      "INSERT INTO hosts (name, address, first_seen_at) VALUES (?, ?, ?) "
      "ON CONFLICT (name) DO UPDATE SET address = excluded.address, in_inventory = 1");
  if (!upsert.ok()) return upsert.status();
  for (const auto& [name, address] : names_and_addresses) {
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(*upsert, name, address, NowMs()));
  }
  return (*transaction)->Commit();
}

Status StateStore::RecordReachability(const std::vector<std::pair<std::string, std::optional<std::string>>>& hosts) {
  if (hosts.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(*db_);
  if (!transaction.ok()) return transaction.status();
  auto failed = db_->Prepare(
      "UPDATE hosts SET unreachable_since = COALESCE(unreachable_since, ?1), unreachable_error = ?2 WHERE name = ?3");
  auto reached = db_->Prepare("UPDATE hosts SET unreachable_since = NULL, unreachable_error = NULL WHERE name = ?1");
  if (!failed.ok()) return failed.status();
  if (!reached.ok()) return reached.status();
  for (const auto& [name, error] : hosts) {
    CLUSTERCTL_RETURN_IF_ERROR(error ? RunWith(*failed, NowMs(), *error, name) : RunWith(*reached, name));
  }
  return (*transaction)->Commit();
}

Result<std::map<std::string, StoredHostKey>> StateStore::LoadHostKeys() {
  std::map<std::string, StoredHostKey> keys;
  auto read_key = [&](const SqliteStatement& row) {
    std::string name;
    StoredHostKey key;
    ReadColumns(row, name, key.type, key.sha256);
    keys[name] = std::move(key);
  };
  CLUSTERCTL_RETURN_IF_ERROR(ForEachRow(
      *db_, "SELECT name, host_key_type, host_key_sha256 FROM hosts WHERE host_key_sha256 IS NOT NULL", read_key));
  CLUSTERCTL_RETURN_IF_ERROR(ForEachRow(*db_, "SELECT endpoint, key_type, key_sha256 FROM jump_host_keys", read_key));
  return keys;
}

Status StateStore::RecordHostKeys(const std::vector<std::pair<std::string, StoredHostKey>>& keys) {
  if (keys.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(*db_);
  if (!transaction.ok()) return transaction.status();
  auto host = db_->Prepare(
      "INSERT INTO hosts (name, first_seen_at, host_key_type, host_key_sha256, host_key_accepted_at) "
      "VALUES (?1, ?4, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET host_key_type = ?2, host_key_sha256 = ?3, "
      "host_key_accepted_at = ?4");
  auto jump = db_->Prepare(
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

Status StateStore::ForgetHostKey(const std::string& name) {
  CLUSTERCTL_RETURN_IF_ERROR(ExecuteSql(
      *db_,
      name.rfind("jump:", 0) == 0 ? "DELETE FROM jump_host_keys WHERE endpoint = ?"
                                  : "UPDATE hosts SET host_key_type = NULL, host_key_sha256 = NULL, "
                                    "host_key_accepted_at = NULL WHERE name = ? AND host_key_sha256 IS NOT NULL",
      name));
  if (db_->Changes() == 0) return Status::NotFound("no recorded host key for " + name);
  return Status::Ok();
}

}  // namespace clusterctl
