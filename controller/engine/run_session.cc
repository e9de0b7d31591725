#include "controller/engine/run_session.h"

namespace clusterctl {

Result<std::unique_ptr<RunSession>> RunSession::Open(const Inventory& inventory, const RunSessionOptions& options) {
  // The lock first: whoever holds it is the answer a second run needs.
  StateStore::WriterOptions writer{options.clock, options.filesystem, options.command};
  auto store = StateStore::OpenForWriting(options.paths, writer);
  if (!store.ok()) return store.status();
  auto agents = AgentBinaries::Discover();
  if (!agents.ok()) return agents.status();
  std::unique_ptr<RunSession> session(new RunSession());
  session->state_ = std::move(store).value();
  std::vector<std::pair<std::string, std::string>> names;
  for (const Host& h : inventory.hosts) names.emplace_back(h.name, h.address);
  CLUSTERCTL_RETURN_IF_ERROR(session->state_->SyncInventoryHosts(names));
  auto run = session->state_->BeginRun(options.kind, options.command);
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
  session->runner_ =
      std::make_unique<RemoteRunner>(std::move(known), std::move(agents).value(), options.remote, options.fanout);
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
  ending.notes = runner_->JumpHostNotes();
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

std::vector<HostResult> HostResultsOf(const DeploymentResult& result, const Inventory& inventory) {
  std::vector<HostResult> results;
  for (const HostReport& r : result.hosts) {
    HostResult host;
    host.host = inventory.FindHost(r.host);
    if (!host.host) continue;
    host.state = r.outcome == "ok"            ? HostResult::State::kOk
                 : r.outcome == "unreachable" ? HostResult::State::kUnreachable
                                              : HostResult::State::kFailed;
    host.error = r.error;
    host.contacted = r.contacted || r.outcome == "unreachable" || r.outcome == "failed";
    results.push_back(host);
  }
  return results;
}

nlohmann::json RunSummaryOf(const DeploymentResult& result, bool check) {
  nlohmann::json summary = {{"hosts", result.hosts.size()}, {"changed", result.changed},
                            {"failed", result.failed},      {"check", check}};
  if (result.stopped) summary["stopped"] = true;
  // Hosts, as they have no steps to count (a run of unreachable hosts failed with "failed": 0 steps).
  size_t unreachable = 0;
  for (const HostReport& r : result.hosts) unreachable += r.outcome == "unreachable" ? 1 : 0;
  if (unreachable > 0) summary["unreachable"] = unreachable;
  return summary;
}

}  // namespace clusterctl
