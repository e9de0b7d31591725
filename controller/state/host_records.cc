// StateStore: the hosts table and host keys.
#include "controller/state/state_store.h"

namespace clusterctl {

Result<std::vector<HostRecord>> StateStore::ListHosts() {
  auto query = db_->Prepare(
      "SELECT name, address, status, in_inventory, first_seen_at, last_run_id, last_status_at, last_error, "
      "host_key_type, host_key_sha256, drifted, removed_at, unreachable_since, unreachable_error FROM hosts ORDER BY name");
  if (!query.ok()) return query.status();
  std::vector<HostRecord> hosts;
  Status read = query->ForEachRow([&] {
    HostRecord h;
    h.name = query->Text(0);
    h.address = query->OptionalText(1);
    h.status = query->Text(2);
    h.in_inventory = query->Int64(3) != 0;
    h.first_seen_at = query->Int64(4);
    h.last_run_id = query->OptionalInt64(5);
    h.last_status_at = query->OptionalInt64(6);
    h.last_error = query->OptionalText(7);
    h.host_key_type = query->OptionalText(8);
    h.host_key_sha256 = query->OptionalText(9);
    h.drifted = query->Int64(10) != 0;
    h.removed_at = query->OptionalInt64(11);
    h.unreachable_since = query->OptionalInt64(12);
    h.unreachable_error = query->OptionalText(13);
    hosts.push_back(std::move(h));
  });
  if (!read.ok()) return read;
  return hosts;
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
    upsert->Reset();
    upsert->Bind(1, name).Bind(2, address).Bind(3, NowMs());
    CLUSTERCTL_RETURN_IF_ERROR(upsert->Run());
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
    SqliteStatement& statement = error ? *failed : *reached;
    statement.Reset();
    if (error) {
      statement.Bind(1, NowMs()).Bind(2, *error).Bind(3, name);
    } else {
      statement.Bind(1, name);
    }
    CLUSTERCTL_RETURN_IF_ERROR(statement.Run());
  }
  return (*transaction)->Commit();
}

Result<std::map<std::string, StoredHostKey>> StateStore::LoadHostKeys() {
  std::map<std::string, StoredHostKey> keys;
  auto hosts = db_->Prepare("SELECT name, host_key_type, host_key_sha256 FROM hosts WHERE host_key_sha256 IS NOT NULL");
  if (!hosts.ok()) return hosts.status();
  Status read = hosts->ForEachRow([&] { keys[hosts->Text(0)] = {hosts->Text(1), hosts->Text(2)}; });
  if (!read.ok()) return read;
  auto jumps = db_->Prepare("SELECT endpoint, key_type, key_sha256 FROM jump_host_keys");
  if (!jumps.ok()) return jumps.status();
  read = jumps->ForEachRow([&] { keys[jumps->Text(0)] = {jumps->Text(1), jumps->Text(2)}; });
  if (!read.ok()) return read;
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
    statement.Reset();
    statement.Bind(1, name).Bind(2, key.type).Bind(3, key.sha256).Bind(4, NowMs());
    CLUSTERCTL_RETURN_IF_ERROR(statement.Run());
  }
  return (*transaction)->Commit();
}

Status StateStore::ForgetHostKey(const std::string& name) {
  auto statement = name.rfind("jump:", 0) == 0
                       ? db_->Prepare("DELETE FROM jump_host_keys WHERE endpoint = ?")
                       : db_->Prepare("UPDATE hosts SET host_key_type = NULL, host_key_sha256 = NULL, "
                                      "host_key_accepted_at = NULL WHERE name = ? AND host_key_sha256 IS NOT NULL");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, name);
  CLUSTERCTL_RETURN_IF_ERROR(statement->Run());
  if (db_->Changes() == 0) return Status::NotFound("no recorded host key for " + name);
  return Status::Ok();
}

}  // namespace clusterctl
