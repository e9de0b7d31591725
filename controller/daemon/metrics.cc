#include "controller/daemon/metrics.h"

#include <cstdio>
#include <set>

namespace clusterctl {
namespace {

const char* const kHealths[] = {"converged", "drifted", "failed", "unreachable", "never deployed",
                                "gone from inventory", "removed"};

class Exposition {
 public:
  void Family(const char* name, const char* type, const char* help) {
    current_ = name;
    text_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void Sample(const std::vector<std::pair<std::string, std::string>>& labels, double value) {
    text_ += current_;
    if (!labels.empty()) {
      text_ += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        text_ += (i ? "," : "") + labels[i].first + "=\"" + EscapeLabelValue(labels[i].second) + "\"";
      }
      text_ += '}';
    }
    char number[32];
    std::snprintf(number, sizeof number, " %.17g\n", value);
    text_ += number;
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string current_;
  std::string text_;
};

double Seconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

void HostFamilies(Exposition& out, const std::vector<HostView>& hosts) {
  out.Family("clusterctl_host_health", "gauge", "1 for the host's health (converged, drifted, failed, ...), 0 otherwise");
  for (const HostView& h : hosts) {
    for (const char* health : kHealths) out.Sample({{"host", h.row.name}, {"health", health}}, h.health == health);
  }
  out.Family("clusterctl_host_drifted_steps", "gauge", "steps the last drift check found would change");
  for (const HostView& h : hosts) {
    if (h.drift) out.Sample({{"host", h.row.name}}, static_cast<double>(h.drift->steps.size()));
  }
  out.Family("clusterctl_validation_check", "gauge", "latest validation per node and check: 1 pass, 0 fail");
  for (const HostView& h : hosts) {
    if (!h.validation) continue;
    std::map<std::string, bool> passed;  // a check with several subjects passes when all pass
    for (const StoredValidation& v : *h.validation) {
      if (v.result == CheckOutcome::kSkip) continue;
      auto [it, fresh] = passed.emplace(v.check, v.result == CheckOutcome::kPass);
      if (!fresh) it->second = it->second && v.result == CheckOutcome::kPass;
    }
    for (const auto& [check, ok] : passed) out.Sample({{"host", h.row.name}, {"check", check}}, ok);
  }
}

void RunFamilies(Exposition& out, const StateSnapshot& state) {
  std::map<std::string, const RunRecord*> last;  // newest finished run per kind
  for (const RunRecord& r : state.runs) {
    if (r.finished_at && !last.count(r.kind)) last[r.kind] = &r;
  }
  out.Family("clusterctl_run_duration_seconds", "gauge", "duration of the last finished run of each kind");
  for (const auto& [kind, r] : last) out.Sample({{"kind", kind}}, Seconds(*r->finished_at - r->started_at));
  out.Family("clusterctl_run_success", "gauge", "1 when the last finished run of each kind ended ok");
  for (const auto& [kind, r] : last) out.Sample({{"kind", kind}}, r->status == RunStatus::kOk);
  out.Family("clusterctl_run_finished_timestamp_seconds", "gauge", "when the last run of each kind finished");
  for (const auto& [kind, r] : last) out.Sample({{"kind", kind}}, Seconds(*r->finished_at));
}

void SlurmFamilies(Exposition& out, const SlurmNodesReading& slurm) {
  if (!slurm.configured) return;
  out.Family("clusterctl_slurm_nodes", "gauge", "nodes slurmctld knows, in the last good reading");
  out.Sample({}, static_cast<double>(slurm.nodes));
  out.Family("clusterctl_slurm_nodes_unavailable", "gauge",
             "nodes that cannot run jobs: drained by clusterctl-health (health) or else (other)");
  out.Sample({{"drained_by", "health"}}, static_cast<double>(slurm.unavailable_by_health));
  out.Sample({{"drained_by", "other"}}, static_cast<double>(slurm.unavailable_other));
  out.Family("clusterctl_slurm_read_ok", "gauge", "1 when the last attempt read slurmctld's nodes");
  out.Sample({}, slurm.error.empty() && slurm.read_at_ms != 0);
  out.Family("clusterctl_slurm_read_timestamp_seconds", "gauge", "when slurmctld's nodes were last read (0: never)");
  out.Sample({}, Seconds(slurm.read_at_ms));
}

}  // namespace

void RequestCounters::Count(const std::string& route, int code) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_[{route, code}];
}

std::map<std::pair<std::string, int>, uint64_t> RequestCounters::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string RenderMetrics(const Site& site, const StateSnapshot& state, const DriftBook& drift, const JobRunner& jobs,
                          const DaemonFacts& daemon, const RequestCounters& requests, const SlurmNodesReading& slurm) {
  Exposition out;
  HostFamilies(out, BuildHostViews(*site.inventory, state, drift.Snapshot()));
  RunFamilies(out, state);
  out.Family("clusterctl_drift_checks_total", "counter", "drift checks the daemon has run since it started");
  out.Sample({}, static_cast<double>(drift.checks()));
  out.Family("clusterctl_drift_last_check_timestamp_seconds", "gauge", "when the last drift check ended (0: none yet)");
  out.Sample({}, Seconds(drift.last_check_ms()));
  out.Family("clusterctl_job_running", "gauge", "1 while a job of this kind runs");
  const std::optional<JobInfo> running = jobs.Running();
  for (RunKind kind : {RunKind::kDeploy, RunKind::kPlan, RunKind::kValidate, RunKind::kDrift}) {
    out.Sample({{"kind", ToString(kind)}}, running && running->kind == kind);
  }
  out.Family("clusterctl_http_requests_total", "counter", "HTTP requests answered, by route and status code");
  for (const auto& [key, count] : requests.Snapshot()) {
    out.Sample({{"route", key.first}, {"code", std::to_string(key.second)}}, static_cast<double>(count));
  }
  out.Family("clusterctl_daemon_start_timestamp_seconds", "gauge", "when the daemon started");
  out.Sample({}, Seconds(daemon.started_at_ms));
  out.Family("clusterctl_inventory_valid", "gauge", "1 when the inventory file as it is now is the one in service");
  out.Sample({}, daemon.inventory_error.empty());
  SlurmFamilies(out, slurm);
  return out.Take();
}

}  // namespace clusterctl
