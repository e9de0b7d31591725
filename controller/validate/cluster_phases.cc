// The cluster checks' own phases (check_spec.h, ClusterPhase) and the
// ClusterRun they run through (cluster_run.h): after the job phase, each
// selected check with a phase, in report order.
#include <map>

#include "controller/validate/remote_exec.h"
#include "controller/validate/validator.h"
#include "controller/views/nfs_view.h"

namespace clusterctl::validation_internal {

void Validator::ClusterPhases() {
  for (const CheckSpec* spec : CheckSpecs()) {
    const ClusterPhase& phase = spec->cluster_phase;
    if (phase.run == nullptr || !Want(spec->name)) continue;
    if (phase.slurm_jobs && !jobs_can_run_) continue;  // the job phase gave it its result (job_checks.cc)
    phase.run(*this);
  }
}

std::vector<std::string> Validator::UsableComputeNodes() const {
  return {usable_compute_.begin(), usable_compute_.end()};
}

const std::string& Validator::SubmitHost() const {
  static const std::string kNone;
  return submit_host_ != nullptr ? submit_host_->name : kNone;
}

std::vector<ClusterRun::ProbedHost> Validator::ProbedHosts() const {
  std::vector<ProbedHost> hosts;
  for (const Host* h : participants_) {
    const NodeProbe& probe = probes_.at(h->name);
    hosts.push_back({h->name, Selected(h->name), probe.reached, probe.unreachable});
  }
  return hosts;
}

std::optional<CheckOutcome> Validator::NodeOutcome(const std::string& check, const std::string& host) const {
  auto on_host = node_outcomes_.find(host);
  if (on_host == node_outcomes_.end()) return std::nullopt;
  auto verdict = on_host->second.find(check);
  if (verdict == on_host->second.end()) return std::nullopt;
  return verdict->second;
}

Result<nlohmann::json> Validator::NfsView() const { return BuildNfsView(*in_.inventory, {}); }

NodeView Validator::View(const std::string& host) const { return ViewOf(*in_.inventory->FindHost(host)); }

std::vector<Result<ToolOutput>> Validator::RunCommands(const std::vector<HostCommand>& commands) {
  std::vector<Result<ToolOutput>> outputs(commands.size(), Status::Unavailable(DeadlineText()));
  std::vector<const Host*> hosts;
  std::map<std::string, std::vector<size_t>> on_host;  // host name -> its commands, in order; entries made before the fan-out
  for (size_t i = 0; i < commands.size(); ++i) {
    const Host* host = in_.inventory->FindHost(commands[i].host);
    if (host == nullptr) {
      outputs[i] = Status::NotFound("not run: no host " + commands[i].host + " in the inventory");
      continue;
    }
    std::vector<size_t>& mine = on_host[host->name];
    if (mine.empty()) hosts.push_back(host);
    mine.push_back(i);
  }
  std::vector<HostResult> reached = in_.run_on(hosts, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
    const std::vector<size_t>& mine = on_host.at(result.host->name);
    for (size_t k = 0; k < mine.size() && SecondsLeft() > 0; ++k) {  // past the deadline: left as not run
      const HostCommand& command = commands[mine[k]];
      outputs[mine[k]] = co_await ExecOnNode(agent, command.argv, command.input, Limit(command.timeout_s));
    }
  });
  for (const HostResult& r : reached) {
    if (r.state == HostResult::State::kOk) continue;
    for (size_t i : on_host.at(r.host->name)) {
      outputs[i] = Status::Unavailable("not run: " + r.host->name + " could not be reached (" + r.error + ")");
    }
  }
  return outputs;
}

}  // namespace clusterctl::validation_internal
