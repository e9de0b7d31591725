#include "controller/daemon/status_document.h"

#include <algorithm>

#include "controller/validate/check_result.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

std::string HealthOf(const HostStatusRow& row, bool drifted) {
  if (row.state == HostState::kOk) return drifted ? "drifted" : "converged";
  return ToString(row.state);
}

nlohmann::json FailedCheckToJson(const StoredValidation& v) {
  return {{"check", v.check},         {"scope", ToString(v.scope)},   {"subject", v.subject},   {"run", v.run_id},
          {"measured", v.measured},   {"threshold", v.threshold}, {"detail", v.detail}, {"evidence", v.evidence}};
}

// A summary of results: counts, and every failure. `run` and `at` are the
// newest run's (cluster-scope results can come from several runs: each
// check's latest).
nlohmann::json ValidationToJson(const std::vector<StoredValidation>& results) {
  nlohmann::json failed = nlohmann::json::array();
  int pass = 0, fail = 0, skip = 0;
  int64_t run = 0, at = 0;
  for (const StoredValidation& v : results) {
    run = std::max(run, v.run_id);
    at = std::max(at, v.at);
    if (v.result == CheckOutcome::kPass) ++pass;
    if (v.result == CheckOutcome::kSkip) ++skip;
    if (v.result != CheckOutcome::kFail) continue;
    ++fail;
    failed.push_back(FailedCheckToJson(v));
  }
  return {{"run", run},
          {"at", at},
          {"result", fail > 0 ? "fail" : "pass"},
          {"pass", pass}, {"fail", fail}, {"skip", skip}, {"failed", failed}};
}

// Groups with their hosts as a collapsed range ("node[02-17]") and a count
// per health.
nlohmann::json GroupsToJson(const Inventory& inventory, const std::vector<HostView>& hosts) {
  std::map<std::string, const HostView*> by_name;
  for (const HostView& h : hosts) by_name[h.row.name] = &h;
  std::map<std::string, std::vector<std::string>> members;
  for (const Host& h : inventory.hosts) {
    if (h.groups.empty()) members["ungrouped"].push_back(h.name);
    for (const std::string& g : h.groups) members[g].push_back(h.name);
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [group, names] : members) {
    nlohmann::json health = nlohmann::json::object();
    std::map<std::string, std::vector<std::string>> by_health;
    for (const std::string& name : names) by_health[by_name.at(name)->health].push_back(name);
    for (const auto& [word, list] : by_health) health[word] = {{"count", list.size()}, {"hosts", CollapseHostList(list)}};
    groups.push_back({{"name", group}, {"hosts", CollapseHostList(names)}, {"count", names.size()}, {"health", health}});
  }
  return groups;
}

}  // namespace

std::vector<HostView> BuildHostViews(const Inventory& inventory, const StateSnapshot& state,
                                     const std::map<std::string, HostDrift>& drift) {
  std::map<std::string, const HostRecord*> records;
  for (const HostRecord& r : state.hosts) records[r.name] = &r;
  std::vector<HostView> views;
  for (HostStatusRow& row : BuildStatusRows(inventory, state.hosts)) {
    HostView view;
    auto record = records.find(row.name);
    bool drifted = record != records.end() && record->second->drifted;
    bool unreached = false;
    if (auto d = drift.find(row.name); d != drift.end()) {
      view.drift = d->second;
      // A deploy recorded after the check (from a shell too) knows better.
      const std::optional<int64_t> outcome_at = record != records.end() ? record->second->last_status_at : std::nullopt;
      const bool newer = !outcome_at || d->second.checked_at_ms >= *outcome_at;
      if (newer && d->second.reached) drifted = d->second.drifted();
      // A converged host the last check could not reach is unreachable now.
      unreached = newer && !d->second.reached && row.state == HostState::kOk;
    }
    if (record != records.end()) view.last_run = record->second->last_run_id;
    if (auto v = state.validations.find(row.name); v != state.validations.end()) view.validation = &v->second;
    if (auto f = state.facts.find(row.name); f != state.facts.end()) view.facts = &f->second;
    view.health = unreached ? "unreachable" : HealthOf(row, drifted);
    view.row = std::move(row);
    views.push_back(std::move(view));
  }
  return views;
}

nlohmann::json HostToJson(const HostView& host) {
  const HostStatusRow& row = host.row;
  return {{"name", row.name},
          {"address", row.address},
          {"groups", row.groups},
          {"state", ToString(row.state)},
          {"health", host.health},
          {"since", row.since ? nlohmann::json(*row.since) : nlohmann::json(nullptr)},
          {"detail", row.detail},
          {"last_run", host.last_run ? nlohmann::json(*host.last_run) : nlohmann::json(nullptr)},
          {"drift", host.drift ? DriftBook::ToJson(*host.drift) : nlohmann::json(nullptr)},
          {"validation", host.validation ? ValidationToJson(*host.validation) : nlohmann::json(nullptr)},
          {"facts", host.facts ? *host.facts : nlohmann::json::object()}};
}

nlohmann::json BuildStatusDocument(const Site& site, const StateSnapshot& state, const DriftBook& drift,
                                   const JobRunner& jobs, const DaemonFacts& daemon, const SlurmNodesReading& slurm) {
  const std::vector<HostView> views = BuildHostViews(*site.inventory, state, drift.Snapshot());
  nlohmann::json hosts = nlohmann::json::array();
  nlohmann::json summary = nlohmann::json::object();
  nlohmann::json failed_checks = nlohmann::json::array();
  for (const HostView& view : views) {
    nlohmann::json host = HostToJson(view);
    summary[view.health] = summary.value(view.health, 0) + 1;
    if (host["validation"].is_object()) {
      for (nlohmann::json check : host["validation"]["failed"]) {
        check["host"] = view.row.name;
        failed_checks.push_back(std::move(check));
      }
    }
    hosts.push_back(std::move(host));
  }
  // Cluster-scope failures (slurm.controller, slurm.srun, nccl.cluster,
  // monitoring.targets) belong to no host: listed with host null.
  for (const StoredValidation& v : state.cluster_validations) {
    if (v.result != CheckOutcome::kFail) continue;
    nlohmann::json check = FailedCheckToJson(v);
    check["host"] = nullptr;
    failed_checks.push_back(std::move(check));
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const RunRecord& r : state.runs) runs.push_back(RunToJson(r));
  nlohmann::json recent = nlohmann::json::array();
  for (const JobInfo& j : jobs.Recent()) recent.push_back(j.ToJson());
  const std::optional<JobInfo> running = jobs.Running();
  return {{"api_version", kApiVersion},
          {"cluster", site.inventory->cluster_name},
          {"generated_at", state.read_at_ms},
          {"daemon", {{"started_at", daemon.started_at_ms}, {"remediate", daemon.remediate}}},
          {"inventory", {{"path", daemon.inventory_path}, {"digest", site.digest}, {"loaded_at", site.loaded_at_ms},
                         {"error", daemon.inventory_error}}},
          {"state", {{"has_state", state.has_state}, {"error", state.error}}},
          {"summary", summary},
          {"groups", GroupsToJson(*site.inventory, views)},
          {"hosts", hosts},
          {"cluster_validation",
           state.cluster_validations.empty() ? nlohmann::json(nullptr) : ValidationToJson(state.cluster_validations)},
          {"failed_checks", failed_checks},
          {"drift", {{"checks", drift.checks()}, {"last_check", drift.last_check_ms()},
                     {"next_check", daemon.next_drift_check_ms}, {"interval_s", daemon.verify_interval_s},
                     {"drifted", drift.Drifted()}}},
          {"job", running ? running->ToJson() : nlohmann::json(nullptr)},
          {"recent_jobs", recent},
          {"plan", jobs.last_plan()},
          {"slurm", SlurmToJson(slurm)},
          {"runs", runs}};
}

}  // namespace clusterctl
