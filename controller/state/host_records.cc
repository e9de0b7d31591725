// HostRecords: the hosts table.
#include "controller/state/host_records.h"

#include "controller/state/row_mapping.h"

namespace clusterctl {

Result<std::vector<HostRecord>> HostRecords::ListHosts() {
  return SelectRows(
      db(),
      "SELECT name, address, status, in_inventory, first_seen_at, last_run_id, last_status_at, last_error, "
      "host_key_type, host_key_sha256, drifted, removed_at, unreachable_since, unreachable_error FROM hosts ORDER BY name",
      [](const SqliteStatement& row) -> Result<HostRecord> {
        HostRecord h;
        Status read = ReadColumns(row, h.name, h.address, h.status, h.in_inventory, h.first_seen_at, h.last_run_id,
                                  h.last_status_at, h.last_error, h.host_key_type, h.host_key_sha256, h.drifted,
                                  h.removed_at, h.unreachable_since, h.unreachable_error);
        if (!read.ok()) return read.WithContext("host " + h.name);
        return h;
      });
}

Status HostRecords::SyncInventoryHosts(const std::vector<std::pair<std::string, std::string>>& names_and_addresses) {
  auto transaction = SqliteTransaction::Begin(db());
  if (!transaction.ok()) return transaction.status();
  CLUSTERCTL_RETURN_IF_ERROR(db().Exec("UPDATE hosts SET in_inventory = 0"));
  auto upsert = db().Prepare(
      "INSERT INTO hosts (name, address, first_seen_at) VALUES (?, ?, ?) "
      "ON CONFLICT (name) DO UPDATE SET address = excluded.address, in_inventory = 1");
  if (!upsert.ok()) return upsert.status();
  for (const auto& [name, address] : names_and_addresses) {
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(*upsert, name, address, NowMs()));
  }
  return (*transaction)->Commit();
}

Status HostRecords::RecordReachability(const std::vector<std::pair<std::string, std::optional<std::string>>>& hosts) {
  if (hosts.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(db());
  if (!transaction.ok()) return transaction.status();
  auto failed = db().Prepare(
      "UPDATE hosts SET unreachable_since = COALESCE(unreachable_since, ?1), unreachable_error = ?2 WHERE name = ?3");
  auto reached = db().Prepare("UPDATE hosts SET unreachable_since = NULL, unreachable_error = NULL WHERE name = ?1");
  if (!failed.ok()) return failed.status();
  if (!reached.ok()) return reached.status();
  for (const auto& [name, error] : hosts) {
    CLUSTERCTL_RETURN_IF_ERROR(error ? RunWith(*failed, NowMs(), *error, name) : RunWith(*reached, name));
  }
  return (*transaction)->Commit();
}

Status HostRecords::RecordHostOutcome(const std::string& host, HostStatus status, int64_t run_id,
                                      const std::optional<std::string>& error) {
  return ExecuteSql(
      db(),
      "INSERT INTO hosts (name, first_seen_at, status, last_run_id, last_status_at, last_error) VALUES (?1, ?4, ?2, ?3, ?4, ?5) "
      "ON CONFLICT (name) DO UPDATE SET status = ?2, last_run_id = ?3, last_status_at = ?4, last_error = ?5",
      host, status, run_id, NowMs(), error);
}

Status HostRecords::MarkHostRemoved(const std::string& host, int64_t run_id) {
  return ExecuteSql(
      db(),
      "UPDATE hosts SET status = ?4, removed_at = ?1, last_run_id = ?2, last_status_at = ?1, last_error = NULL "
      "WHERE name = ?3 AND in_inventory = 0",
      NowMs(), run_id, host, HostStatus::kRemoved);
}

Status HostRecords::SetHostDrifted(const std::string& host, bool drifted) {
  return ExecuteSql(db(), "UPDATE hosts SET drifted = ? WHERE name = ?", drifted, host);
}

}  // namespace clusterctl
