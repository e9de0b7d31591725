#include "controller/run/run_session.h"

namespace clusterctl {

const char* ToString(RunKind kind) {
  switch (kind) {
    case RunKind::kDeploy: return "deploy";
    case RunKind::kPlan: return "plan";
    case RunKind::kDrift: return "drift";
    case RunKind::kValidate: return "validate";
    case RunKind::kFacts: return "facts";
    case RunKind::kCommand: return "run";
  }
  return "?";
}

Result<std::unique_ptr<RunSession>> RunSession::Open(const Inventory& inventory, const RunSessionOptions& options) {
  // The lock first: whoever holds it is the answer a second run needs.
  StateStore::WriterOptions writer{options.clock, options.filesystem, options.command};
  auto store = StateStore::OpenForWriting(options.paths, writer);
  if (!store.ok()) return store.status();
  std::optional<AgentBinaries> agents;
  if (!options.sessions) {
    auto found = AgentBinaries::Discover();
    if (!found.ok()) return found.status();
    agents = std::move(found).value();
  }
  std::unique_ptr<RunSession> session(new RunSession());
  session->state_ = std::move(store).value();
  session->clock_ = options.clock;
  std::vector<std::pair<std::string, std::string>> names;
  for (const Host& h : inventory.hosts) names.emplace_back(h.name, h.address);
  CLUSTERCTL_RETURN_IF_ERROR(session->state_->SyncInventoryHosts(names));
  auto run = session->state_->BeginRun(ToString(options.kind), options.command);
  if (!run.ok()) return run.status();
  session->run_id_ = *run;
  if (!inventory.extra_vars.empty()) {
    CLUSTERCTL_RETURN_IF_ERROR(session->state_->RecordRunExtraVars(*run, inventory.extra_vars));
  }
  auto keys = session->state_->LoadHostKeys();
  if (!keys.ok()) return keys.status();
  std::map<std::string, RecordedHostKey> known;
  for (const auto& [name, key] : *keys) known[name] = {key.type, key.sha256};
  auto journal = HostKeyJournal::Open(*session->state_);
  if (!journal.ok()) return journal.status();
  session->host_keys_ = std::move(journal).value();
  if (options.sessions) {
    session->sessions_ = options.sessions;
    return session;
  }
  session->runner_ = std::make_unique<RemoteRunner>(std::move(known), std::move(*agents), options.remote, options.fanout);
  HostKeyJournal* host_keys = session->host_keys_.get();
  session->runner_->OnHostKeyAccepted([host_keys](const std::string& host, const RecordedHostKey& key) {
    return host_keys->Record(host, StoredHostKey{key.type, key.sha256});
  });
  return session;
}

RunSession::Ending RunSession::Finish(const std::vector<HostResult>& results, RunStatus status,
                                      const nlohmann::json& summary) {
  Ending ending;
  ending.recorded = host_keys_->Flush();
  if (runner_) ending.notes = runner_->JumpHostNotes();
  std::vector<std::pair<std::string, std::optional<std::string>>> reachability;
  for (const HostResult& r : results) {
    if (r.state == HostResult::State::kUnreachable) reachability.emplace_back(r.host->name, r.error);
    if (r.state != HostResult::State::kUnreachable && r.contacted) reachability.emplace_back(r.host->name, std::nullopt);
  }
  if (Status reached = state_->RecordReachability(reachability); ending.recorded.ok()) ending.recorded = reached;
  for (const HostResult& r : results) {
    if (r.state == HostResult::State::kOk) continue;
    Status event = state_->RecordEvent(run_id_, r.host->name, "error", ToString(r.state), r.error);
    if (ending.recorded.ok()) ending.recorded = event;
  }
  Status finished = state_->FinishRun(run_id_, status, summary);
  if (ending.recorded.ok()) ending.recorded = finished;
  return ending;
}

}  // namespace clusterctl
