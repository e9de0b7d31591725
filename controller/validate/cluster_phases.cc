// The cluster checks' own phases (check_spec.h, ClusterPhase) and the
// ClusterRun they run through (cluster_run.h): after the node verdicts, each
// selected check with a phase, in report order.
#include <algorithm>
#include <map>

#include "controller/validate/remote_exec.h"
#include "controller/validate/validator.h"
#include "controller/views/nfs_view.h"

namespace clusterctl::validation_internal {

void Validator::ClusterPhases() {
  for (const CheckSpec* spec : CheckSpecs()) {
    const ClusterPhase& phase = spec->cluster_phase;
    if (phase.run == nullptr || !Want(spec->name)) continue;
    if (phase.slurm_jobs && JobsCannotRun(*spec)) continue;
    if (spec->level == CheckLevel::kAcceptance) {
      Progress(spec->name + ": measuring (" + std::to_string(SecondsLeft()) + " s before the deadline)");
    }
    phase.run(*this);
  }
}

// No Slurm cluster or no compute node selected: a cluster check is skipped
// (a node check got its skip from its requirements). slurmctld not read:
// blocked, on the cluster or on every compute node that answered. The submit
// host unreachable: a cluster check fails; a node check's phase runs and
// fails the nodes it would have run jobs on (it alone knows which).
bool Validator::JobsCannotRun(const CheckSpec& spec) {
  const std::string& cluster = in_.inventory->cluster_name;
  const bool any_compute_selected = std::any_of(in_.selected.begin(), in_.selected.end(),
                                                [](const Host* h) { return HasGroup(*h, kGroupCompute); });
  if (slurm_hosts_.empty() || !any_compute_selected) {
    std::string why = slurm_hosts_.empty() ? "no Slurm cluster in the inventory" : "no compute node selected";
    if (spec.scope == kCluster) Add(Skip(spec.name, kCluster, cluster, why));
    return true;
  }
  if (!slurm_.problem.empty()) {
    if (spec.scope == kCluster) Add(Blocked(spec.name, kCluster, cluster, slurm_.problem_check, slurm_.problem));
    for (const std::string& node : spec.scope == kNode ? ComputeNodes() : std::vector<std::string>{}) {
      Add(Blocked(spec.name, kNode, node, slurm_.problem_check, slurm_.problem));
    }
    return true;
  }
  if (spec.scope == kCluster && !Reached(submit_host_->name)) {
    Add(Fail(spec.name, kCluster, cluster, "the submit host " + submit_host_->name + " is unreachable"));
    return true;
  }
  return false;
}

std::vector<std::string> Validator::ComputeNodes() const {
  std::vector<std::string> nodes;
  for (const Host* h : in_.selected) {
    if (HasGroup(*h, kGroupCompute) && probes_.at(h->name).reached) nodes.push_back(h->name);
  }
  return nodes;
}

bool Validator::Reached(const std::string& host) const {
  auto probe = probes_.find(host);
  return probe != probes_.end() && probe->second.reached;
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

// The power engine, as `clusterctl power` runs it; nothing once the deadline passed.
std::vector<PowerResult> Validator::ThroughBmcs(const std::vector<const Host*>& hosts, PowerAction action) {
  if (in_.processes != nullptr && SecondsLeft() > 0) return RunPower(hosts, action, *in_.processes, kBmcForks);
  std::vector<PowerResult> results;
  for (const Host* host : hosts) {
    results.push_back({host, false, in_.processes ? DeadlineText() : "not read: this run has no way to the BMCs", {}, {}});
  }
  return results;
}

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
