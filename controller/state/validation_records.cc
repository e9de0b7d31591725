// ValidationRecords: the validations table (one row per check result).
#include "controller/state/validation_records.h"

#include "common/json_text.h"
#include "controller/state/row_mapping.h"

namespace clusterctl {
namespace {

Result<StoredValidation> ReadValidation(const SqliteStatement& row) {
  StoredValidation v;
  std::optional<std::string> measured, threshold, detail, evidence;
  Status read =
      ReadColumns(row, v.run_id, v.check, v.scope, v.subject, v.result, measured, threshold, detail, evidence, v.at);
  if (!read.ok()) return read.WithContext("run " + std::to_string(v.run_id) + ", check " + v.check);
  v.measured = measured.value_or("");
  v.threshold = threshold.value_or("");
  v.detail = detail.value_or("");
  nlohmann::json lines = nlohmann::json::parse(evidence.value_or("[]"), nullptr, false);
  if (lines.is_array()) {
    for (const auto& line : lines) {
      if (line.is_string()) v.evidence.push_back(line.get<std::string>());
    }
  }
  return v;
}

constexpr const char* kColumns = "run_id, check_name, scope, subject, result, measured, threshold, detail, evidence, at";

}  // namespace

Status ValidationRecords::SaveValidations(int64_t run_id, const std::vector<StoredValidation>& results) {
  if (results.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(db());
  if (!transaction.ok()) return transaction.status();
  auto insert = db().Prepare(std::string("INSERT INTO validations (") + kColumns +
                             ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!insert.ok()) return insert.status();
  int64_t now = NowMs();
  for (const StoredValidation& v : results) {
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(*insert, run_id, v.check, v.scope, v.subject, v.result, v.measured, v.threshold,
                                       v.detail, JsonText(nlohmann::json(v.evidence)), now));
  }
  return (*transaction)->Commit();
}

Result<std::vector<StoredValidation>> ValidationRecords::ValidationsOfRun(int64_t run_id) {
  return SelectRows(db(), std::string("SELECT ") + kColumns + " FROM validations WHERE run_id = ?1 ORDER BY id",
                    ReadValidation, run_id);
}

Result<std::map<std::string, std::vector<StoredValidation>>> ValidationRecords::LatestValidationPerNode() {
  std::map<std::string, std::vector<StoredValidation>> out;
  Status read = ForEachRow(db(),
                           std::string("SELECT ") + kColumns +
                               " FROM validations v WHERE scope = 'node' AND run_id = "
                               "(SELECT MAX(run_id) FROM validations w WHERE w.subject = v.subject AND w.scope = 'node') "
                               "ORDER BY id",
                           [&](const SqliteStatement& row) -> Status {
                             Result<StoredValidation> v = ReadValidation(row);
                             if (!v.ok()) return v.status();
                             out[v->subject].push_back(std::move(v).value());
                             return Status::Ok();
                           });
  if (!read.ok()) return read;
  return out;
}

Result<std::vector<StoredValidation>> ValidationRecords::LatestClusterValidations() {
  return SelectRows(db(),
                    std::string("SELECT ") + kColumns +
                        " FROM validations v WHERE scope != 'node' AND run_id = "
                        "(SELECT MAX(run_id) FROM validations w WHERE w.check_name = v.check_name "
                        "AND w.subject = v.subject AND w.scope = v.scope) ORDER BY run_id, id",
                    ReadValidation);
}

}  // namespace clusterctl
