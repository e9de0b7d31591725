// StateStore: step results, intents, host outcomes and file backups — the
// records the convergence engine resumes from.
#include "common/json_text.h"
#include "controller/state/state_store.h"

namespace clusterctl {

Result<std::map<std::string, std::map<std::string, StepResult>>> StateStore::LoadLastStepResults() {
  auto query = db_->Prepare(
      "SELECT s.host, s.role, s.step_id, s.input_hash, s.status FROM steps s "
      "JOIN (SELECT host, role, step_id, max(run_id) AS run_id FROM steps GROUP BY host, role, step_id) last "
      "ON s.host = last.host AND s.role = last.role AND s.step_id = last.step_id AND s.run_id = last.run_id");
  if (!query.ok()) return query.status();
  std::map<std::string, std::map<std::string, StepResult>> results;
  Status read = query->ForEachRow([&] {
    results[query->Text(0)][query->Text(1) + "/" + query->Text(2)] = {query->Text(3), query->Text(4)};
  });
  if (!read.ok()) return read;
  return results;
}

Status StateStore::RecordStep(const StepRecord& s) {
  auto insert = db_->Prepare(
      "INSERT OR REPLACE INTO steps (run_id, host, role, step_id, input_hash, status, changed, started_at, "
      "finished_at, output_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  insert->Bind(1, s.run_id).Bind(2, s.host).Bind(3, s.role).Bind(4, s.step_id).Bind(5, s.input_hash).Bind(6, s.status);
  insert->Bind(7, int64_t{s.changed}).Bind(8, s.started_at).Bind(9, s.finished_at).Bind(10, s.output_summary);
  return insert->Run();
}

Result<std::vector<Intent>> StateStore::LoadOpenIntents() {
  auto query = db_->Prepare("SELECT id, host, kind, target, reason, detail FROM intents WHERE done_at IS NULL ORDER BY id");
  if (!query.ok()) return query.status();
  std::vector<Intent> intents;
  Status read = query->ForEachRow([&] {
    Intent i{query->Int64(0), query->Text(1), query->Text(2), query->Text(3), query->Text(4), nullptr};
    if (auto detail = query->OptionalText(5)) i.detail = nlohmann::json::parse(*detail, nullptr, false);
    intents.push_back(std::move(i));
  });
  if (!read.ok()) return read;
  return intents;
}

Result<int64_t> StateStore::OpenIntent(int64_t run_id, const std::string& host, const std::string& kind,
                                       const std::string& target, const std::string& reason) {
  auto existing = db_->Prepare("SELECT id FROM intents WHERE host = ? AND kind = ? AND target = ? AND done_at IS NULL");
  if (!existing.ok()) return existing.status();
  existing->Bind(1, host).Bind(2, kind).Bind(3, target);
  auto row = existing->Step();
  if (!row.ok()) return row.status();
  if (*row) return existing->Int64(0);
  auto insert = db_->Prepare(
      "INSERT INTO intents (host, kind, target, reason, created_run_id, created_at) VALUES (?, ?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  insert->Bind(1, host).Bind(2, kind).Bind(3, target).Bind(4, reason).Bind(5, run_id).Bind(6, NowMs());
  CLUSTERCTL_RETURN_IF_ERROR(insert->Run());
  return db_->LastInsertId();
}

Status StateStore::SetIntentDetail(int64_t intent_id, const nlohmann::json& detail) {
  auto update = db_->Prepare("UPDATE intents SET detail = ? WHERE id = ?");
  if (!update.ok()) return update.status();
  update->Bind(1, JsonText(detail)).Bind(2, intent_id);
  return update->Run();
}

Status StateStore::CloseIntent(int64_t intent_id, int64_t run_id) {
  auto update = db_->Prepare("UPDATE intents SET done_run_id = ?, done_at = ? WHERE id = ?");
  if (!update.ok()) return update.status();
  update->Bind(1, run_id).Bind(2, NowMs()).Bind(3, intent_id);
  return update->Run();
}

Status StateStore::DeleteIntent(int64_t intent_id) {
  auto remove = db_->Prepare("DELETE FROM intents WHERE id = ? AND done_at IS NULL");
  if (!remove.ok()) return remove.status();
  remove->Bind(1, intent_id);
  return remove->Run();
}

Status StateStore::RecordHostOutcome(const std::string& host, const std::string& status, int64_t run_id,
                                     const std::optional<std::string>& error) {
  auto update = db_->Prepare(
      "INSERT INTO hosts (name, first_seen_at, status, last_run_id, last_status_at, last_error) VALUES (?1, ?4, ?2, ?3, ?4, ?5) "
      "ON CONFLICT (name) DO UPDATE SET status = ?2, last_run_id = ?3, last_status_at = ?4, last_error = ?5");
  if (!update.ok()) return update.status();
  update->Bind(1, host).Bind(2, status).Bind(3, run_id).Bind(4, NowMs()).Bind(5, error);
  return update->Run();
}

Status StateStore::MarkHostRemoved(const std::string& host, int64_t run_id) {
  auto update = db_->Prepare(
      "UPDATE hosts SET status = 'removed', removed_at = ?1, last_run_id = ?2, last_status_at = ?1, last_error = NULL "
      "WHERE name = ?3 AND in_inventory = 0");
  if (!update.ok()) return update.status();
  update->Bind(1, NowMs()).Bind(2, run_id).Bind(3, host);
  return update->Run();
}

Result<std::vector<std::string>> StateStore::RolesRecordedFor(const std::string& host) {
  auto query = db_->Prepare("SELECT DISTINCT role FROM steps WHERE host = ? ORDER BY role");
  if (!query.ok()) return query.status();
  query->Bind(1, host);
  std::vector<std::string> roles;
  Status read = query->ForEachRow([&] {
    roles.push_back(query->Text(0));
  });
  if (!read.ok()) return read;
  return roles;
}

Status StateStore::SetHostDrifted(const std::string& host, bool drifted) {
  auto update = db_->Prepare("UPDATE hosts SET drifted = ? WHERE name = ?");
  if (!update.ok()) return update.status();
  update->Bind(1, int64_t{drifted ? 1 : 0}).Bind(2, host);
  return update->Run();
}

Result<std::set<std::string>> StateStore::KnownSecrets() {
  auto query = db_->Prepare("SELECT name FROM secrets");
  if (!query.ok()) return query.status();
  std::set<std::string> names;
  Status read = query->ForEachRow([&] { names.insert(query->Text(0)); });
  if (!read.ok()) return read;
  return names;
}

Status StateStore::RecordSecrets(int64_t run_id, const std::vector<std::string>& names) {
  auto insert = db_->Prepare("INSERT OR IGNORE INTO secrets (name, recorded_at, run_id) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.status();
  for (const std::string& name : names) {
    insert->Reset();
    insert->Bind(1, name).Bind(2, NowMs()).Bind(3, run_id);
    CLUSTERCTL_RETURN_IF_ERROR(insert->Run());
  }
  return Status::Ok();
}

Status StateStore::SaveFileBackup(int64_t run_id, const std::string& host, const std::string& path,
                                  const std::string& content) {
  auto insert = db_->Prepare("INSERT INTO file_backups (run_id, host, path, content, at) VALUES (?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  insert->Bind(1, run_id).Bind(2, host).Bind(3, path).BindBlob(4, content).Bind(5, NowMs());
  CLUSTERCTL_RETURN_IF_ERROR(insert->Run());
  // The newest kFileBackupsKept of each file; a file rewritten on every
  // deploy must not grow the state without bound.
  auto prune = db_->Prepare(
      "DELETE FROM file_backups WHERE host = ?1 AND path = ?2 AND id NOT IN "
      "(SELECT id FROM file_backups WHERE host = ?1 AND path = ?2 ORDER BY id DESC LIMIT ?3)");
  if (!prune.ok()) return prune.status();
  prune->Bind(1, host).Bind(2, path).Bind(3, int64_t{kFileBackupsKept});
  return prune->Run();
}

Result<std::vector<StepRecord>> StateStore::StepsOfRun(int64_t run_id) {
  auto query = db_->Prepare(
      "SELECT host, role, step_id, input_hash, status, changed, started_at, finished_at, output_summary FROM steps "
      "WHERE run_id = ? ORDER BY host, started_at");
  if (!query.ok()) return query.status();
  query->Bind(1, run_id);
  std::vector<StepRecord> steps;
  Status read = query->ForEachRow([&] {
    StepRecord s;
    s.run_id = run_id;
    s.host = query->Text(0);
    s.role = query->Text(1);
    s.step_id = query->Text(2);
    s.input_hash = query->Text(3);
    s.status = query->Text(4);
    s.changed = query->Int64(5) != 0;
    s.started_at = query->Int64(6);
    s.finished_at = query->Int64(7);
    s.output_summary = query->Text(8);
    steps.push_back(std::move(s));
  });
  if (!read.ok()) return read;
  return steps;
}

Result<std::vector<nlohmann::json>> StateStore::EventsOfRun(int64_t run_id) {
  auto query = db_->Prepare("SELECT at, host, level, kind, message FROM events WHERE run_id = ? ORDER BY id");
  if (!query.ok()) return query.status();
  query->Bind(1, run_id);
  std::vector<nlohmann::json> events;
  Status read = query->ForEachRow([&] {
    events.push_back({{"at", query->Int64(0)}, {"host", query->OptionalText(1).value_or("")}, {"level", query->Text(2)},
                      {"kind", query->Text(3)}, {"message", query->Text(4)}});
  });
  if (!read.ok()) return read;
  return events;
}

}  // namespace clusterctl
