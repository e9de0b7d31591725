// StateStore: the facts table.
#include "common/json_text.h"
#include "controller/state/state_store.h"

namespace clusterctl {

Status StateStore::SaveFacts(int64_t run_id, const std::vector<std::pair<std::string, nlohmann::json>>& facts) {
  if (facts.empty()) return Status::Ok();
  auto transaction = SqliteTransaction::Begin(*db_);
  if (!transaction.ok()) return transaction.status();
  auto upsert = db_->Prepare(
      "INSERT INTO facts (host, gathered_at, run_id, facts) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (host) DO UPDATE SET gathered_at = ?2, run_id = ?3, facts = ?4");
  if (!upsert.ok()) return upsert.status();
  for (const auto& [host, document] : facts) {
    upsert->Reset();
    upsert->Bind(1, host).Bind(2, NowMs()).Bind(3, run_id).Bind(4, JsonText(document));
    CLUSTERCTL_RETURN_IF_ERROR(upsert->Run());
  }
  return (*transaction)->Commit();
}

Result<std::map<std::string, StoredFacts>> StateStore::LoadFacts() {
  auto query = db_->Prepare("SELECT host, gathered_at, facts FROM facts");
  if (!query.ok()) return query.status();
  std::map<std::string, StoredFacts> out;
  while (true) {
    auto row = query->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    nlohmann::json document = nlohmann::json::parse(query->Text(2), nullptr, false);
    if (document.is_discarded()) return Status::Corruption("facts of " + query->Text(0) + " are not JSON");
    out[query->Text(0)] = {query->Int64(1), std::move(document)};
  }
  return out;
}

}  // namespace clusterctl
