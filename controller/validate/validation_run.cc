#include "controller/validate/validation_run.h"

#include <algorithm>

#include "common/strings.h"
#include "controller/catalog/check_variables.h"
#include "controller/validate/catalogue.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/scontrol_nodes.h"
#include "controller/validate/acceptance_drain.h"
#include "controller/validate/validator.h"

namespace clusterctl {
namespace validation_internal {

bool HasGroup(const Host& host, const char* group) {
  return std::find(host.groups.begin(), host.groups.end(), group) != host.groups.end();
}

namespace {

// The hosts of a Slurm cluster, where the sssd role runs too.
bool InSlurmGroups(const Host& host) {
  return HasGroup(host, kGroupController) || HasGroup(host, kGroupControllerBackup) || HasGroup(host, kGroupLogin) ||
         HasGroup(host, kGroupCompute);
}

// The checks whose verdicts read the controller's view (check_spec.h): with
// none of them needed the controller takes no part.
bool NeedsController(const std::set<std::string>& needed) {
  return std::any_of(needed.begin(), needed.end(), [](const std::string& name) {
    const CheckSpec* spec = FindCheckSpec(name);
    return spec != nullptr && spec->needs_controller;
  });
}

}  // namespace

ValidationOutcome Validator::Run() {
  const Inventory& inv = *in_.inventory;
  needed_ = NeededChecks(in_.checks);
  for (const std::string& name : needed_) {
    if (FindCheckSpec(name)->needs_controller) needed_from_helpers_.insert(name);
  }
  for (const Host* h : in_.selected) selected_names_.insert(h->name);
  if (const Group* g = inv.FindGroup(kGroupController); g != nullptr && !g->members.empty()) {
    controller_ = inv.FindHost(g->members.front());
  }
  if (const Group* g = inv.FindGroup(kGroupLogin); g != nullptr && !g->members.empty()) {
    submit_host_ = inv.FindHost(g->members.front());
  }
  if (submit_host_ == nullptr) submit_host_ = controller_;
  bool slurm_cluster = controller_ != nullptr && inv.FindGroup(kGroupCompute) != nullptr;
  std::set<std::string> joined;
  for (const Host* h : in_.selected) {
    participants_.push_back(h);
    joined.insert(h->name);
  }
  if (slurm_cluster && NeedsController(needed_)) {
    // The controller and the submit host take part even outside --limit: they
    // answer for the selected nodes.
    for (const Host* helper : {controller_, submit_host_}) {
      if (joined.insert(helper->name).second) participants_.push_back(helper);
    }
    for (const Host* h : participants_) {
      if (InSlurmGroups(*h)) slurm_hosts_.push_back(h);
    }
  }
  for (const Host* h : participants_) {
    probes_[h->name].readings.host = h->name;
    check_vars_[h->name] = WithValidateDefaults(h->vars);
  }

  Probe();
  CrossCheck();
  NodeVerdicts();
  ClusterPhases();

  // Report order: the check list's order, then subject.
  const std::vector<std::string>& order = AllCheckNames();
  std::stable_sort(results_.begin(), results_.end(), [&](const CheckResult& a, const CheckResult& b) {
    auto ia = std::find(order.begin(), order.end(), a.check) - order.begin();
    auto ib = std::find(order.begin(), order.end(), b.check) - order.begin();
    return ia != ib ? ia < ib : a.subject < b.subject;
  });
  if (in_.drain_failed) {
    Progress("drain-failed: reading the measured compute nodes' states on the Slurm controller");
    outcome_.slurm_actions = DrainFailedNodes(*this, controller_ != nullptr ? controller_->name : "", results_);
  }
  outcome_.results = std::move(results_);
  return std::move(outcome_);
}

NodeRole Validator::RoleOf(const Host& host) const {
  NodeRole role;
  role.slurm_cluster = !slurm_hosts_.empty();
  role.slurm_host = std::find(slurm_hosts_.begin(), slurm_hosts_.end(), &host) != slurm_hosts_.end();
  role.compute = HasGroup(host, kGroupCompute);
  role.controller = &host == controller_;
  role.directory_client = InSlurmGroups(host);  // where the sssd role runs
  return role;
}

NodeView Validator::ViewOf(const Host& host) const {
  NodeView view{probes_.at(host.name).readings, check_vars_.at(host.name), RoleOf(host),
                &slurm_, nullptr};
  view.blocked = [this, &host](const std::string& check, const std::string& prerequisite, const std::string& why) {
    return Blocked(check, kNode, host.name, prerequisite, why);
  };
  return view;
}

// ---------------------------------------------------------------- phase 1

// A probe's reading: the first of its commands that is installed, read again
// after `settle` when it is not settled yet (the settle's output kept with it
// when it still is not); "not installed" when its executable is missing.
Task<ToolOutput> Validator::RunProbe(AgentSession& agent, const ProbeSpec& probe, const NodeView& view, size_t& used) {
  const std::string none;
  ToolOutput output = NotRunOutput();
  if (!probe.executable.empty() && !co_await IsExecutableOnNode(agent, probe.executable, Limit(10))) co_return output;
  std::vector<Argv> commands = probe.CommandsFor(view);
  for (used = 0; used < commands.size(); ++used) {
    output = co_await ExecOnNode(agent, commands[used], none, Limit(probe.timeout_s));
    if (output.started) break;
  }
  if (used == commands.size()) co_return output;
  if (probe.settled != nullptr && !probe.settled(output)) {
    ToolOutput waited = co_await ExecOnNode(agent, probe.settle, none, Limit(probe.settle_timeout_s));
    output = co_await ExecOnNode(agent, commands[used], none, Limit(probe.timeout_s));
    if (!probe.settled(output)) output.settle_out = waited.Both();
  }
  co_return output;
}

Task<void> Validator::ProbeHost(const Host& host, AgentSession& agent, HostResult& result) {
  NodeProbe& probe = probes_.at(host.name);
  auto facts = co_await agent.Facts(clock_.Monotonic() + std::chrono::seconds(Limit(60)));
  if (!facts.ok()) {
    result.Fail(facts.status());
    co_return;
  }
  probe.reached = true;
  probe.readings = NodeReadings::FromFacts(host.name, std::move(facts).value());
  result.data = probe.readings.facts;
  const NodeView view = ViewOf(host);
  // A host outside --limit takes part only to answer for the selected ones
  // (the Slurm controller, the submit host): only what those checks read of it.
  for (const ProbeSpec* spec : ProbesFor(view, Selected(host.name) ? needed_ : needed_from_helpers_)) {
    size_t used = 0;
    ToolOutput output = co_await RunProbe(agent, *spec, view, used);
    probe.readings.outputs[spec->id] = std::move(output);
    probe.readings.command_used[spec->id] = used;
  }
}

void Validator::Probe() {
  outcome_.probe_results = in_.run_on(participants_, [this](AgentSession& agent, HostResult& result) -> Task<void> {
    co_await ProbeHost(*result.host, agent, result);
  });
  for (const HostResult& r : outcome_.probe_results) {
    NodeProbe& probe = probes_.at(r.host->name);
    if (r.state != HostResult::State::kOk) {
      probe.reached = false;
      probe.unreachable = r.error;
    } else {
      outcome_.facts.emplace_back(r.host->name, probe.readings.facts);
    }
    if (!Selected(r.host->name)) continue;
    if (probe.reached) {
      Add(Pass("reachable", kNode, r.host->name, "", "", "SSH and the agent answered"));
    } else {
      Add(Fail("reachable", kNode, r.host->name, std::string(ToString(r.state)) + ": " + r.error));
    }
  }
}

// ---------------------------------------------------------------- phase 2

// What the controller's own probes read: its credential and its slurm.conf.
void Validator::ReadControllerProbes() {
  const NodeProbe& head = probes_.at(controller_->name);
  slurm_.controller = controller_->name;
  slurm_.controller_reached = head.reached;
  const ToolOutput& digest = head.readings.Output(checks::SlurmConfDigestProbe().id);
  if (digest.started && digest.exit_code == 0) slurm_.controller_conf_digest = digest.out.substr(0, 64);
  const ToolOutput& credential = head.readings.Output(checks::MungeCredentialProbe().id);
  if (credential.started && credential.exit_code == 0) slurm_.controller_credential = credential.out;
}

// On the controller: scontrol ping and the nodes' states, and every other
// node's credential decoded; on the others: the controller's credential decoded.
Task<void> Validator::CrossOnHost(AgentSession& agent, const Host& host,
                                  const std::vector<std::pair<std::string, std::string>>& credentials) {
  const std::string none;
  const Argv unmunge = {"unmunge"};
  if (&host != controller_) {
    if (!slurm_.controller_credential.empty() && Want("munge.decode")) {
      slurm_.controller_decoded_here.at(host.name) =
          co_await ExecOnNode(agent, unmunge, slurm_.controller_credential, Limit(15));
    }
    co_return;
  }
  if (ReadsSlurmStates()) {
    const Argv ping = {"scontrol", "ping"};
    controller_ping_ = co_await ExecOnNode(agent, ping, none, Limit(30));
    slurm_nodes_read_ = co_await ReadScontrolNodes(agent, Limit(30));
  }
  // Indexes, not structured bindings: g++ 12 mishandles those across co_await.
  for (size_t i = 0; i < credentials.size(); ++i) {
    slurm_.decoded_on_controller.at(credentials[i].first) =
        co_await ExecOnNode(agent, unmunge, credentials[i].second, Limit(15));
  }
}

void Validator::CrossCheck() {
  const std::string& cluster = in_.inventory->cluster_name;
  if (slurm_hosts_.empty()) {
    Add(Skip("slurm.controller", kCluster, cluster, "no Slurm cluster in the inventory (no controller or compute group)"));
    return;
  }
  ReadControllerProbes();
  if (!slurm_.controller_reached) {
    slurm_.problem = "the Slurm controller " + controller_->name + " is unreachable: " + probes_.at(controller_->name).unreachable;
    slurm_.problem_check = "slurm.controller";
    Add(Fail("slurm.controller", kCluster, cluster, slurm_.problem));
    return;
  }
  // Credentials to decode on the controller, by host.
  std::vector<std::pair<std::string, std::string>> credentials;
  std::vector<const Host*> hosts;
  for (const Host* h : slurm_hosts_) {
    const NodeProbe& p = probes_.at(h->name);
    if (!p.reached) continue;
    hosts.push_back(h);
    if (h == controller_) continue;
    ++slurm_.other_hosts;
    const ToolOutput& credential = p.readings.Output(checks::MungeCredentialProbe().id);
    if (Want("munge.decode") && credential.started && credential.exit_code == 0) {
      credentials.emplace_back(h->name, credential.out);
      slurm_.decoded_on_controller[h->name].started = false;  // until the controller answers
    }
    slurm_.controller_decoded_here[h->name].started = false;
  }
  in_.run_on(hosts, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
    co_await CrossOnHost(agent, *result.host, credentials);
  });
  for (const auto& [name, decoded] : slurm_.controller_decoded_here) {
    if (!decoded.started) continue;
    ++slurm_.tried_elsewhere;
    if (decoded.exit_code == 0) ++slurm_.decoded_elsewhere;
  }
  if (ReadsSlurmStates()) JudgeController(controller_ping_);
}

// slurm.controller from scontrol ping, and the nodes' states for slurm.node.
void Validator::JudgeController(const ToolOutput& ping) {
  const std::string& cluster = in_.inventory->cluster_name;
  if (!ping.started) {
    slurm_.problem = "Slurm is not installed on the controller " + controller_->name + " (no scontrol)";
    Add(Skip("slurm.controller", kCluster, cluster, slurm_.problem));
    return;
  }
  auto controllers = ParseScontrolPing(ping.out);
  bool up = controllers.ok() && std::any_of(controllers->begin(), controllers->end(), [](const auto& c) { return c.second; });
  if (!up) {
    Add(Fail("slurm.controller", kCluster, cluster, "slurmctld is not responding on " + controller_->name,
             TailLines(ping.Both()), "DOWN", "UP"));
    slurm_.problem = "slurmctld on " + controller_->name + " is not responding (slurm.controller failed)";
    slurm_.problem_check = "slurm.controller";
    return;
  }
  Add(Pass("slurm.controller", kCluster, cluster, "UP", "UP", std::string(Trim(ping.out))));
  if (slurm_nodes_read_.ok()) {
    for (SlurmNodeState& n : *slurm_nodes_read_) slurm_.nodes[n.name] = std::move(n);
  } else {
    // No reading of the nodes' states: slurm.node fails on each compute node.
    slurm_.problem = "no reading of the nodes' states: " + slurm_nodes_read_.status().message();
    slurm_.problem_check = "slurm.node";
  }
}

}  // namespace validation_internal

ValidationOutcome RunValidation(const ValidationInputs& inputs) { return validation_internal::Validator(inputs).Run(); }

}  // namespace clusterctl
