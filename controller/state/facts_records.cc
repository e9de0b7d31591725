// FactsRecords: the facts table.
#include "controller/state/facts_records.h"

#include "common/json_text.h"
#include "controller/state/row_mapping.h"

namespace clusterctl {

Status FactsRecords::SaveFacts(int64_t run_id, const std::vector<std::pair<std::string, nlohmann::json>>& facts) {
  if (facts.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(db());
  if (!transaction.ok()) return transaction.status();
  auto upsert = db().Prepare(
      "INSERT INTO facts (host, gathered_at, run_id, facts) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (host) DO UPDATE SET gathered_at = ?2, run_id = ?3, facts = ?4");
  if (!upsert.ok()) return upsert.status();
  for (const auto& [host, document] : facts) {
    CLUSTERCTL_RETURN_IF_ERROR(RunWith(*upsert, host, NowMs(), run_id, JsonText(document)));
  }
  return (*transaction)->Commit();
}

Result<std::map<std::string, StoredFacts>> FactsRecords::LoadFacts() {
  std::map<std::string, StoredFacts> out;
  Status read = ForEachRow(db(), "SELECT host, gathered_at, facts FROM facts", [&](const SqliteStatement& row) {
    std::string host, text;
    int64_t gathered_at = 0;
    ReadColumns(row, host, gathered_at, text);
    nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
    if (document.is_discarded()) return Status::Corruption("facts of " + host + " are not JSON");
    out[host] = {gathered_at, std::move(document)};
    return Status::Ok();
  });
  if (!read.ok()) return read;
  return out;
}

}  // namespace clusterctl
