// StateStore: the validations table (one row per check result).
#include "controller/state/state_store.h"
#include "common/json_text.h"

namespace clusterctl {
namespace {

StoredValidation ReadValidation(const SqliteStatement& q) {
  StoredValidation v;
  v.run_id = q.Int64(0);
  v.check = q.Text(1);
  v.scope = q.Text(2);
  v.subject = q.Text(3);
  v.result = q.Text(4);
  v.measured = q.OptionalText(5).value_or("");
  v.threshold = q.OptionalText(6).value_or("");
  v.detail = q.OptionalText(7).value_or("");
  nlohmann::json evidence = nlohmann::json::parse(q.OptionalText(8).value_or("[]"), nullptr, false);
  if (evidence.is_array()) {
    for (const auto& line : evidence) {
      if (line.is_string()) v.evidence.push_back(line.get<std::string>());
    }
  }
  v.at = q.Int64(9);
  return v;
}

constexpr const char* kColumns = "run_id, check_name, scope, subject, result, measured, threshold, detail, evidence, at";

}  // namespace

Status StateStore::SaveValidations(int64_t run_id, const std::vector<StoredValidation>& results) {
  if (results.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(*db_);
  if (!transaction.ok()) return transaction.status();
  auto insert = db_->Prepare(std::string("INSERT INTO validations (") + kColumns +
                             ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!insert.ok()) return insert.status();
  int64_t now = NowMs();
  for (const StoredValidation& v : results) {
    insert->Reset();
    insert->Bind(1, run_id).Bind(2, v.check).Bind(3, v.scope).Bind(4, v.subject).Bind(5, v.result);
    insert->Bind(6, v.measured).Bind(7, v.threshold).Bind(8, v.detail).Bind(9, JsonText(nlohmann::json(v.evidence)));
    insert->Bind(10, now);
    CLUSTERCTL_RETURN_IF_ERROR(insert->Run());
  }
  return (*transaction)->Commit();
}

Result<std::vector<StoredValidation>> StateStore::ValidationsOfRun(int64_t run_id) {
  auto query = db_->Prepare(std::string("SELECT ") + kColumns + " FROM validations WHERE run_id = ?1 ORDER BY id");
  if (!query.ok()) return query.status();
  query->Bind(1, run_id);
  std::vector<StoredValidation> out;
  Status read = query->ForEachRow([&] { out.push_back(ReadValidation(*query)); });
  if (!read.ok()) return read;
  return out;
}

Result<std::map<std::string, std::vector<StoredValidation>>> StateStore::LatestValidationPerNode() {
  auto query = db_->Prepare(std::string("SELECT ") + kColumns +
                            " FROM validations v WHERE scope = 'node' AND run_id = "
                            "(SELECT MAX(run_id) FROM validations w WHERE w.subject = v.subject AND w.scope = 'node') "
                            "ORDER BY id");
  if (!query.ok()) return query.status();
  std::map<std::string, std::vector<StoredValidation>> out;
  Status read = query->ForEachRow([&] {
    StoredValidation v = ReadValidation(*query);
    out[v.subject].push_back(std::move(v));
  });
  if (!read.ok()) return read;
  return out;
}

Result<std::vector<StoredValidation>> StateStore::LatestClusterValidations() {
  auto query = db_->Prepare(std::string("SELECT ") + kColumns +
                            " FROM validations v WHERE scope != 'node' AND run_id = "
                            "(SELECT MAX(run_id) FROM validations w WHERE w.check_name = v.check_name "
                            "AND w.subject = v.subject AND w.scope = v.scope) ORDER BY run_id, id");
  if (!query.ok()) return query.status();
  std::vector<StoredValidation> out;
  Status read = query->ForEachRow([&] { out.push_back(ReadValidation(*query)); });
  if (!read.ok()) return read;
  return out;
}

}  // namespace clusterctl
