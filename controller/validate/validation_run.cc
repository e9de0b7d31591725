#include "controller/validate/validation_run.h"

#include <algorithm>
#include <atomic>
#include <regex>

#include <unistd.h>

#include "common/strings.h"
#include "controller/validate/checks.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/pair_schedule.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/system_tools.h"
#include "inventory/hostlist.h"

namespace clusterctl {

// ---------------------------------------------------------------- selection

Result<CheckSelection> CheckSelection::Parse(const std::vector<std::string>& names) {
  CheckSelection selection;
  const std::vector<std::string>& known = AllCheckNames();
  for (const std::string& raw : names) {
    std::string name(Trim(raw));
    bool exclude = !name.empty() && name[0] == '!';
    if (exclude) name = std::string(Trim(name.substr(1)));
    if (name.empty()) continue;
    bool matches = std::any_of(known.begin(), known.end(), [&](const std::string& k) {
      return k == name || k.rfind(name + ".", 0) == 0;
    });
    if (!matches) {
      std::vector<std::string> candidates = known;
      for (const char* prefix : {"clock", "munge", "slurm", "gpu", "ib", "nccl"}) candidates.push_back(prefix);
      return Status::InvalidArgument("--checks: unknown check '" + name + "'" + DidYouMean(name, candidates) +
                                     "; known: " + Join(known, ", ") + " (or a prefix: slurm, gpu, ib, nccl)");
    }
    (exclude ? selection.excluded_ : selection.chosen_).insert(name);
  }
  return selection;
}

bool CheckSelection::Has(const std::string& check) const {
  auto matches = [&](const std::set<std::string>& names) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& c) { return check == c || check.rfind(c + ".", 0) == 0; });
  };
  return (chosen_.empty() || matches(chosen_)) && !matches(excluded_);
}

bool CheckSelection::HasAny(const std::vector<std::string>& checks) const {
  return std::any_of(checks.begin(), checks.end(), [&](const std::string& c) { return Has(c); });
}

namespace {

constexpr CheckScope kNode = CheckScope::kNode;
constexpr CheckScope kCluster = CheckScope::kCluster;

// What phase 1 found on one host, and what later phases add.
struct NodeProbe {
  bool reached = false;
  std::string unreachable;  // why, when not reached
  nlohmann::json facts;
  int pci_gpus = 0;
  std::vector<std::string> modules;
  std::string driver_version;
  ToolOutput chrony, munge_credential, slurm_conf_digest, slurmd_active, nvidia_smi, xid_log, ib_tool;
  std::string ib_source;            // "ibstat", "ibv_devinfo", "sysfs"
  bool has_ib_write_bw = false;
  bool has_nccl_tests = false;
  ToolOutput unmunge_controller;    // phase 2: the controller's credential decoded here
  ToolOutput unmunge_here;          // phase 2: this node's credential decoded on the controller
};

std::vector<std::string> ModulesOf(const nlohmann::json& facts) {
  std::vector<std::string> modules;
  if (facts.contains("modules") && facts["modules"].is_array()) {
    for (const auto& m : facts["modules"]) {
      if (m.is_string()) modules.push_back(m.get<std::string>());
    }
  }
  return modules;
}

// IB ports from the facts' sysfs reading (when neither ibstat nor ibv_devinfo is installed).
std::vector<IbPortStatus> SysfsIbPorts(const nlohmann::json& facts) {
  std::vector<IbPortStatus> ports;
  if (!facts.contains("ib_ports") || !facts["ib_ports"].is_array()) return ports;
  for (const auto& p : facts["ib_ports"]) {
    IbPortStatus port;
    port.device = p.value("device", "");
    port.port = p.value("port", 0);
    port.state = NormalizePortState(p.value("state", ""));
    port.phys_state = NormalizePortState(p.value("phys_state", ""));
    port.rate_gbps = p.value("rate_gbps", 0.0);
    port.link_layer = p.value("link_layer", "");
    port.line = port.device + " port " + std::to_string(port.port) + ": state " + p.value("state", "") + ", phys_state " +
                p.value("phys_state", "") + ", rate " + p.value("rate_text", "") + ", link_layer " + port.link_layer +
                " (sysfs)";
    ports.push_back(std::move(port));
  }
  return ports;
}

bool HasGroup(const Host& host, const char* group) {
  return std::find(host.groups.begin(), host.groups.end(), group) != host.groups.end();
}

class Validator {
 public:
  explicit Validator(const ValidationInputs& in)
      : in_(in), deadline_(std::chrono::steady_clock::now() + in.deadline) {}

  ValidationOutcome Run();

 private:
  bool Want(const std::string& check) const { return in_.checks.Has(check); }
  const Thresholds& ThresholdsOf(const std::string& host) const { return in_.thresholds.at(host); }
  bool Selected(const std::string& host) const { return selected_names_.count(host) > 0; }
  int SecondsLeft() const {
    auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline_ - std::chrono::steady_clock::now()).count();
    return static_cast<int>(std::max<int64_t>(left, 0));
  }
  // A command's time limit: its own, but never past the run's deadline.
  int Limit(int seconds) const { return std::max(1, std::min(seconds, SecondsLeft())); }
  void Add(CheckResult r) {
    if (Want(r.check)) results_.push_back(std::move(r));
  }
  void DeadlinePassed(const std::string& check, CheckScope scope, const std::string& subject) {
    Add(Fail(check, scope, subject, "not run: the validation's deadline (" + std::to_string(in_.deadline.count()) +
                                         " s) passed first"));
  }

  void Probe();
  void CrossCheck();
  void Jobs();
  void Pairs();
  void NodeVerdicts();

  Task<void> ProbeHost(const Host& host, AgentConnection& agent, HostResult& result);

  const ValidationInputs& in_;
  std::chrono::steady_clock::time_point deadline_;
  std::set<std::string> selected_names_;
  const Host* controller_ = nullptr;
  const Host* submit_host_ = nullptr;
  std::vector<const Host*> slurm_hosts_;  // controller, login, compute (selected or helpers)
  std::vector<const Host*> participants_;
  std::map<std::string, NodeProbe> probes_;  // every participant; entries made before any fan-out
  std::vector<std::string> controller_problem_;  // why Slurm cluster checks cannot run (empty: they can)
  bool slurm_installed_ = false;
  std::map<std::string, SlurmNodeState> slurm_nodes_;
  std::set<std::string> usable_compute_;   // slurm.node passed and munge.decode did not fail
  std::map<std::string, std::string> not_usable_;  // compute node -> the failed check that keeps jobs off it
  std::set<std::string> gpu_ok_;           // gpu.driver and gpu.count passed
  std::vector<CheckResult> results_;
  ValidationOutcome outcome_;
};

bool SlurmChecksWanted(const CheckSelection& s) {
  return s.HasAny({"munge.decode", "slurm.controller", "slurm.node", "slurm.conf", "slurm.gres", "slurm.srun",
                   "slurm.gpu_job", "nccl.node", "nccl.cluster"});
}

ValidationOutcome Validator::Run() {
  const Inventory& inv = *in_.inventory;
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
  if (slurm_cluster && SlurmChecksWanted(in_.checks)) {
    // The controller and the submit host take part even outside --limit: they
    // answer for the selected nodes.
    for (const Host* helper : {controller_, submit_host_}) {
      if (joined.insert(helper->name).second) participants_.push_back(helper);
    }
    for (const Host* h : participants_) {
      if (HasGroup(*h, kGroupController) || HasGroup(*h, kGroupLogin) || HasGroup(*h, kGroupCompute)) {
        slurm_hosts_.push_back(h);
      }
    }
  }
  for (const Host* h : participants_) probes_[h->name];

  Probe();
  CrossCheck();
  NodeVerdicts();
  Jobs();
  Pairs();

  // Report order: the check list's order, then subject.
  const std::vector<std::string>& order = AllCheckNames();
  std::stable_sort(results_.begin(), results_.end(), [&](const CheckResult& a, const CheckResult& b) {
    auto ia = std::find(order.begin(), order.end(), a.check) - order.begin();
    auto ib = std::find(order.begin(), order.end(), b.check) - order.begin();
    return ia != ib ? ia < ib : a.subject < b.subject;
  });
  outcome_.results = std::move(results_);
  return std::move(outcome_);
}

// ---------------------------------------------------------------- phase 1

Task<void> Validator::ProbeHost(const Host& host, AgentConnection& agent, HostResult& result) {
  NodeProbe& probe = probes_.at(host.name);
  nlohmann::json request = {{"type", "facts"}};
  auto reply = co_await agent.Call(request, "", std::chrono::steady_clock::now() + std::chrono::seconds(Limit(60)));
  if (!reply.ok() || reply->header.value("type", "") != "result") {
    result.Fail(reply.ok() ? Status::Internal("agent: " + reply->header.dump()) : reply.status());
    co_return;
  }
  probe.reached = true;
  probe.facts = reply->header["facts"];
  result.data = probe.facts;
  probe.modules = ModulesOf(probe.facts);
  if (probe.facts.contains("pci")) probe.pci_gpus = probe.facts["pci"].value("gpu_count", 0);
  if (probe.facts.contains("nvidia_driver") && probe.facts["nvidia_driver"].is_string()) {
    probe.driver_version = probe.facts["nvidia_driver"].get<std::string>();
  }
  const std::string none;
  if (Want("clock.offset")) {
    std::vector<std::string> argv = {"chronyc", "-n", "tracking"};
    probe.chrony = co_await ExecOnNode(agent, argv, none, Limit(15));
    // A chronyd that runs but has not synchronised yet (just started, as
    // right after a deploy) gets up to 30 s to do so, as an admin would
    // give it with chronyc waitsync, before its state is judged.
    auto tracking = ParseChronyTracking(probe.chrony.out);
    if (tracking.ok() && tracking->leap_status != "Normal") {
      std::vector<std::string> wait = {"chronyc", "-n", "waitsync", "15", "0", "0", "2"};
      ToolOutput waited = co_await ExecOnNode(agent, wait, none, Limit(40));
      (void)waited;
      probe.chrony = co_await ExecOnNode(agent, argv, none, Limit(15));
    }
  }
  bool slurm_host = std::find(slurm_hosts_.begin(), slurm_hosts_.end(), &host) != slurm_hosts_.end();
  if (slurm_host && Want("munge.decode")) {
    std::vector<std::string> argv = {"munge", "-n"};
    probe.munge_credential = co_await ExecOnNode(agent, argv, none, Limit(15));
  }
  if (slurm_host && Want("slurm.conf")) {
    std::vector<std::string> argv = {"sha256sum", "/etc/slurm/slurm.conf"};
    probe.slurm_conf_digest = co_await ExecOnNode(agent, argv, none, Limit(15));
  }
  if (slurm_host && HasGroup(host, kGroupCompute) &&
      in_.checks.HasAny({"slurm.node", "slurm.srun", "slurm.gpu_job", "nccl.node", "nccl.cluster"})) {
    std::vector<std::string> argv = {"systemctl", "is-active", "slurmd"};
    probe.slurmd_active = co_await ExecOnNode(agent, argv, none, Limit(15));
  }
  bool driver_loaded = std::find(probe.modules.begin(), probe.modules.end(), "nvidia") != probe.modules.end();
  // Later checks need these too: jobs run only on nodes whose slurmd and GPUs passed.
  if (probe.pci_gpus > 0 && driver_loaded &&
      in_.checks.HasAny({"gpu.count", "gpu.persistence", "gpu.ecc", "slurm.gpu_job", "nccl.node", "nccl.cluster"})) {
    std::vector<std::string> argv = {"nvidia-smi", "-q"};
    probe.nvidia_smi = co_await ExecOnNode(agent, argv, none, Limit(60));
  }
  if (probe.pci_gpus > 0 && Want("gpu.xid")) {
    std::vector<std::string> argv = {"journalctl", "-q", "-k", "-b", "0", "-o", "short-precise", "--no-pager",
                                     "--grep", "NVRM: Xid"};
    probe.xid_log = co_await ExecOnNode(agent, argv, none, Limit(60));
  }
  bool has_ib = probe.facts.contains("ib_ports") && !probe.facts["ib_ports"].empty();
  if (has_ib && in_.checks.HasAny({"ib.ports", "ib.write_bw"})) {
    std::vector<std::string> ibstat = {"ibstat"};
    probe.ib_tool = co_await ExecOnNode(agent, ibstat, none, Limit(30));
    probe.ib_source = "ibstat";
    if (!probe.ib_tool.started) {
      std::vector<std::string> devinfo = {"ibv_devinfo", "-v"};
      probe.ib_tool = co_await ExecOnNode(agent, devinfo, none, Limit(30));
      probe.ib_source = "ibv_devinfo";
    }
    if (!probe.ib_tool.started) probe.ib_source = "sysfs";
  }
  if (has_ib && Want("ib.write_bw")) {
    std::vector<std::string> argv = {"test", "-x", "/usr/bin/ib_write_bw"};
    ToolOutput found = co_await ExecOnNode(agent, argv, none, Limit(10));
    probe.has_ib_write_bw = found.exit_code == 0;
  }
  if (probe.pci_gpus > 0 && in_.checks.HasAny({"nccl.node", "nccl.cluster"})) {
    std::vector<std::string> argv = {"test", "-x", ThresholdsOf(host.name).nccl_tests_dir + "/all_reduce_perf"};
    ToolOutput found = co_await ExecOnNode(agent, argv, none, Limit(10));
    probe.has_nccl_tests = found.exit_code == 0;
  }
}

void Validator::Probe() {
  outcome_.probe_results = in_.run_on(participants_, [this](AgentConnection& agent, HostResult& result) -> Task<void> {
    co_await ProbeHost(*result.host, agent, result);
  });
  for (const HostResult& r : outcome_.probe_results) {
    NodeProbe& probe = probes_.at(r.host->name);
    if (r.state != HostResult::State::kOk) {
      probe.reached = false;
      probe.unreachable = r.error;
    } else {
      outcome_.facts.emplace_back(r.host->name, probe.facts);
    }
    if (!Selected(r.host->name)) continue;
    if (probe.reached) Add(Pass("reachable", kNode, r.host->name, FormatNumber(static_cast<double>(r.duration.count())) + " ms", "", "agent answered"));
    else Add(Fail("reachable", kNode, r.host->name, std::string(ToString(r.state)) + ": " + r.error));
  }
}

// ---------------------------------------------------------------- phase 2

void Validator::CrossCheck() {
  if (slurm_hosts_.empty()) return;
  NodeProbe& head = probes_.at(controller_->name);
  if (!head.reached) {
    controller_problem_ = {"the Slurm controller " + controller_->name + " is unreachable: " + head.unreachable};
    return;
  }
  const std::string none;
  // Credentials to decode on the controller, by host.
  std::vector<std::pair<std::string, std::string>> credentials;
  for (const Host* h : slurm_hosts_) {
    const NodeProbe& p = probes_.at(h->name);
    if (!Want("munge.decode")) break;
    if (h != controller_ && p.reached && p.munge_credential.exit_code == 0 && p.munge_credential.started) {
      credentials.emplace_back(h->name, p.munge_credential.out);
    }
  }
  std::vector<const Host*> hosts;
  for (const Host* h : slurm_hosts_) {
    if (probes_.at(h->name).reached) hosts.push_back(h);
  }
  ToolOutput ping, show;
  std::map<std::string, ToolOutput> decoded_on_controller;
  for (const auto& [name, credential] : credentials) decoded_on_controller[name];
  in_.run_on(hosts, [&, this](AgentConnection& agent, HostResult& result) -> Task<void> {
    const Host& host = *result.host;
    NodeProbe& probe = probes_.at(host.name);
    if (&host == controller_) {
      if (in_.checks.HasAny({"slurm.controller", "slurm.node", "slurm.gres", "slurm.srun", "slurm.gpu_job", "nccl.node",
                             "nccl.cluster"})) {
        std::vector<std::string> ping_argv = {"scontrol", "ping"};
        ping = co_await ExecOnNode(agent, ping_argv, none, Limit(30));
        std::vector<std::string> show_argv = {"scontrol", "show", "node"};
        show = co_await ExecOnNode(agent, show_argv, none, Limit(30));
      }
      std::vector<std::string> unmunge = {"unmunge"};
      // Indexes, not structured bindings: g++ 12 mishandles those across co_await.
      for (size_t i = 0; i < credentials.size(); ++i) {
        ToolOutput decoded = co_await ExecOnNode(agent, unmunge, credentials[i].second, Limit(15));
        decoded_on_controller.at(credentials[i].first) = std::move(decoded);
      }
    } else if (head.munge_credential.started && head.munge_credential.exit_code == 0 && Want("munge.decode")) {
      std::vector<std::string> unmunge = {"unmunge"};
      probe.unmunge_controller = co_await ExecOnNode(agent, unmunge, head.munge_credential.out, Limit(15));
    }
  });
  for (auto& [name, output] : decoded_on_controller) probes_.at(name).unmunge_here = std::move(output);

  // Slurm controller and node states.
  slurm_installed_ = ping.started;
  if (!ping.started) {
    controller_problem_ = {"Slurm is not installed on the controller " + controller_->name + " (no scontrol)"};
  } else {
    auto controllers = ParseScontrolPing(ping.out);
    bool up = controllers.ok() && std::any_of(controllers->begin(), controllers->end(), [](const auto& c) { return c.second; });
    if (up) {
      Add(Pass("slurm.controller", kCluster, in_.inventory->cluster_name, "UP", "UP",
               std::string(Trim(ping.out))));
    } else {
      Add(Fail("slurm.controller", kCluster, in_.inventory->cluster_name,
               "slurmctld is not responding on " + controller_->name, TailLines(ping.Both()), "DOWN", "UP"));
      controller_problem_ = {"slurmctld on " + controller_->name + " is not responding (slurm.controller failed)"};
    }
    auto nodes = ParseScontrolShowNode(show.out);
    if (up && nodes.ok()) {
      for (SlurmNodeState& n : *nodes) slurm_nodes_[n.name] = std::move(n);
    } else if (up) {
      controller_problem_ = {"scontrol show node: " + nodes.status().message()};
    }
  }
}

// ---------------------------------------------------------------- node verdicts

void Validator::NodeVerdicts() {
  const NodeProbe* head = controller_ != nullptr ? &probes_.at(controller_->name) : nullptr;
  std::string head_digest;
  if (head != nullptr && head->slurm_conf_digest.exit_code == 0) head_digest = head->slurm_conf_digest.out.substr(0, 64);
  // How many nodes' credentials the controller decoded (for the controller's own verdict).
  int decoded_elsewhere = 0, tried_elsewhere = 0;
  for (const Host* h : slurm_hosts_) {
    const NodeProbe& p = probes_.at(h->name);
    if (h == controller_ || !p.reached || !p.unmunge_controller.started) continue;
    ++tried_elsewhere;
    if (p.unmunge_controller.exit_code == 0) ++decoded_elsewhere;
  }

  for (const Host* host : in_.selected) {
    const std::string& name = host->name;
    const NodeProbe& p = probes_.at(name);
    const Thresholds& t = ThresholdsOf(name);
    std::string unreachable = name + " is unreachable (reachable failed)";
    if (!p.reached) {
      for (const std::string& check : AllCheckNames()) {
        if (check != "reachable" && check != "slurm.controller" && check != "slurm.srun" && check != "nccl.cluster" &&
            check != "ib.write_bw") {
          Add(Skip(check, kNode, name, unreachable));
        }
      }
      continue;
    }
    Add(EvaluateClock(name, p.chrony, t));

    bool slurm_host = std::find(slurm_hosts_.begin(), slurm_hosts_.end(), host) != slurm_hosts_.end();
    bool compute = HasGroup(*host, kGroupCompute);
    std::string not_slurm = name + " is not in the controller, login or compute group";
    // munge
    if (!Want("munge.decode")) {
      // not asked for: nothing was probed
    } else if (!slurm_host) {
      Add(Skip("munge.decode", kNode, name, slurm_hosts_.empty() ? "no Slurm cluster in the inventory (no controller or compute group)" : not_slurm));
    } else if (!p.munge_credential.started) {
      Add(Skip("munge.decode", kNode, name, "munge is not installed on " + name));
    } else if (p.munge_credential.exit_code != 0) {
      Add(Fail("munge.decode", kNode, name, "munge -n failed on " + name + " (is munged running?)",
               TailLines(p.munge_credential.Both())));
    } else if (host == controller_) {
      if (tried_elsewhere > 0 && decoded_elsewhere == 0) {
        Add(Fail("munge.decode", kNode, name, "no other node decodes the controller's credentials (" +
                 std::to_string(tried_elsewhere) + " tried): " + name + "'s munge.key differs from all of them"));
      } else {
        Add(Pass("munge.decode", kNode, name, std::to_string(decoded_elsewhere) + "/" + std::to_string(tried_elsewhere) +
                 " nodes decode its credential"));
      }
    } else if (head == nullptr || !head->reached) {
      Add(Skip("munge.decode", kNode, name, "the controller is unreachable"));
    } else {
      std::vector<std::string> why, evidence;
      if (p.unmunge_here.exit_code != 0) {
        why.push_back("a credential made on " + name + " does not decode on " + controller_->name + " (controller)");
        for (auto& l : TailLines(p.unmunge_here.Both(), 3)) evidence.push_back(controller_->name + ": " + l);
      }
      if (p.unmunge_controller.started && p.unmunge_controller.exit_code != 0) {
        why.push_back("a credential made on " + controller_->name + " does not decode on " + name);
        for (auto& l : TailLines(p.unmunge_controller.Both(), 3)) evidence.push_back(name + ": " + l);
      }
      if (!why.empty()) {
        not_usable_[name] = "munge.decode failed";
        Add(Fail("munge.decode", kNode, name, Join(why, "; ") + ": munge.key differs or munged is broken", evidence));
      } else {
        Add(Pass("munge.decode", kNode, name, "both ways", "", "decodes on " + controller_->name + " and back"));
      }
    }

    // slurm.conf identical to the controller's
    if (!slurm_host) {
      Add(Skip("slurm.conf", kNode, name, slurm_hosts_.empty() ? "no Slurm cluster in the inventory" : not_slurm));
    } else if (p.slurm_conf_digest.exit_code != 0) {
      Add(Fail("slurm.conf", kNode, name, "cannot read /etc/slurm/slurm.conf on " + name, TailLines(p.slurm_conf_digest.Both())));
    } else if (head_digest.empty()) {
      Add(Skip("slurm.conf", kNode, name, "the controller's slurm.conf could not be read"));
    } else {
      std::string digest = p.slurm_conf_digest.out.substr(0, 64);
      if (digest != head_digest) {
        Add(Fail("slurm.conf", kNode, name, "/etc/slurm/slurm.conf on " + name + " differs from " + controller_->name + "'s",
                 {name + ": sha256 " + digest, controller_->name + ": sha256 " + head_digest}, digest.substr(0, 12),
                 "== " + head_digest.substr(0, 12)));
      } else {
        Add(Pass("slurm.conf", kNode, name, "sha256 " + digest.substr(0, 12), "== controller's"));
      }
    }

    // slurm.node, slurm.gres
    if (!compute || !slurm_host) {
      std::string why = compute ? "no Slurm cluster in the inventory" : name + " is not a compute node";
      Add(Skip("slurm.node", kNode, name, why));
      Add(Skip("slurm.gres", kNode, name, why));
    } else if (!controller_problem_.empty()) {
      Add(Skip("slurm.node", kNode, name, controller_problem_.front()));
      Add(Skip("slurm.gres", kNode, name, controller_problem_.front()));
    } else {
      auto it = slurm_nodes_.find(name);
      CheckResult node = EvaluateSlurmNode(name, it == slurm_nodes_.end() ? nullptr : &it->second, p.slurmd_active);
      if (node.outcome != CheckOutcome::kPass) not_usable_[name] = "slurm.node failed";
      if (!not_usable_.count(name)) usable_compute_.insert(name);
      Add(node);
      if (it == slurm_nodes_.end()) {
        Add(Skip("slurm.gres", kNode, name, name + " is not registered with slurmctld"));
      } else if (p.pci_gpus == 0 && it->second.gpus.value_or(0) == 0) {
        Add(Skip("slurm.gres", kNode, name, "no GPUs on " + name + " and none in Slurm"));
      } else {
        Add(EvaluateGres(name, it->second, p.pci_gpus));
      }
    }

    // GPU
    if (p.pci_gpus == 0) {
      std::string why = "no NVIDIA GPUs on the PCI bus of " + name;
      for (const char* check : {"gpu.driver", "gpu.count", "gpu.persistence", "gpu.ecc", "gpu.xid"}) Add(Skip(check, kNode, name, why));
    } else {
      CheckResult driver = EvaluateGpuDriver(name, p.pci_gpus, p.modules, p.driver_version);
      bool loaded = driver.outcome == CheckOutcome::kPass;
      Add(driver);
      int expected = t.gpus_expected.value_or(p.pci_gpus);
      if (!loaded) {
        for (const char* check : {"gpu.count", "gpu.persistence", "gpu.ecc"}) {
          Add(Skip(check, kNode, name, "the NVIDIA driver is not loaded on " + name + " (gpu.driver failed)"));
        }
      } else if (!p.nvidia_smi.started) {
        for (const char* check : {"gpu.count", "gpu.persistence", "gpu.ecc"}) {
          Add(Fail(check, kNode, name, "nvidia-smi is not installed on " + name + " although the driver is loaded"));
        }
      } else {
        Result<NvidiaSmiReport> report = p.nvidia_smi.exit_code == 0
                                             ? ParseNvidiaSmiQuery(p.nvidia_smi.out)
                                             : Result<NvidiaSmiReport>(Status::Unavailable(
                                                   "exit " + std::to_string(p.nvidia_smi.exit_code)));
        std::vector<CheckResult> health = EvaluateGpuHealth(name, report, p.nvidia_smi.Both(), expected, t);
        if (t.gpus_expected && p.pci_gpus != expected) {
          health[0] = Fail("gpu.count", kNode, name,
                           "PCI detection finds " + std::to_string(p.pci_gpus) + " GPUs, the inventory expects " +
                               std::to_string(expected), {}, std::to_string(p.pci_gpus) + " on PCI",
                           "== " + std::to_string(expected) + " (inventory)");
        }
        if (health[0].outcome == CheckOutcome::kPass) gpu_ok_.insert(name);
        for (CheckResult& r : health) Add(std::move(r));
      }
      Add(EvaluateXid(name, p.xid_log, t));
    }

    // InfiniBand
    bool has_ib = p.facts.contains("ib_ports") && !p.facts["ib_ports"].empty();
    if (!has_ib) {
      Add(Skip("ib.ports", kNode, name, "no InfiniBand ports on " + name));
    } else if (p.ib_source == "sysfs") {
      Add(EvaluateIbPorts(name, SysfsIbPorts(p.facts), p.facts["ib_ports"].dump(), "sysfs", t));
    } else {
      Result<std::vector<IbPortStatus>> ports = p.ib_source == "ibstat" ? ParseIbstat(p.ib_tool.out) : ParseIbvDevinfo(p.ib_tool.out);
      if (ports.ok() && p.ib_tool.exit_code != 0) ports = Status::Unavailable(p.ib_source + " exited " + std::to_string(p.ib_tool.exit_code));
      Add(EvaluateIbPorts(name, ports, p.ib_tool.Both(), p.ib_source, t));
    }
    if (p.pci_gpus == 0 || !has_ib) {
      Add(Skip("ib.peermem", kNode, name, p.pci_gpus == 0 ? "no GPUs on " + name + " (peer memory is for GPU+InfiniBand nodes)"
                                                       : "no InfiniBand ports on " + name));
    } else {
      Add(EvaluatePeerMemory(name, p.modules));
    }
  }
}

// ---------------------------------------------------------------- phase 3

// Node names in srun's error lines ("... failed on node node03: ...", "srun: error: node03: task 1: ...").
std::vector<std::string> NodesNamedIn(const std::string& text, const std::set<std::string>& candidates) {
  std::vector<std::string> named;
  for (const std::string& line : Split(text, '\n')) {
    if (line.find("error") == std::string::npos) continue;
    for (const std::string& c : candidates) {
      static const std::regex kWordChar("[A-Za-z0-9_.-]");
      size_t at = line.find(c);
      while (at != std::string::npos) {
        bool left = at == 0 || !std::regex_match(std::string(1, line[at - 1]), kWordChar);
        bool right = at + c.size() >= line.size() || !std::regex_match(std::string(1, line[at + c.size()]), kWordChar);
        if (left && right) {
          if (std::find(named.begin(), named.end(), c) == named.end()) named.push_back(c);
          break;
        }
        at = line.find(c, at + 1);
      }
    }
  }
  return named;
}

void Validator::Jobs() {
  const std::string cluster = in_.inventory->cluster_name;
  bool any_compute_selected = std::any_of(in_.selected.begin(), in_.selected.end(),
                                          [](const Host* h) { return HasGroup(*h, kGroupCompute); });
  if (slurm_hosts_.empty() || !any_compute_selected) {
    Add(Skip("slurm.srun", kCluster, cluster, slurm_hosts_.empty() ? "no Slurm cluster in the inventory" : "no compute node selected"));
    Add(Skip("nccl.cluster", kCluster, cluster, slurm_hosts_.empty() ? "no Slurm cluster in the inventory" : "no compute node selected"));
    return;
  }
  if (!controller_problem_.empty()) {
    Add(Skip("slurm.srun", kCluster, cluster, controller_problem_.front()));
    Add(Skip("nccl.cluster", kCluster, cluster, controller_problem_.front()));
    for (const Host* h : in_.selected) {
      if (!HasGroup(*h, kGroupCompute) || !probes_.at(h->name).reached) continue;
      Add(Skip("slurm.gpu_job", kNode, h->name, controller_problem_.front()));
      Add(Skip("nccl.node", kNode, h->name, controller_problem_.front()));
    }
    return;
  }
  std::vector<std::string> usable(usable_compute_.begin(), usable_compute_.end());
  // Per-node job plans, decided before the fan-out.
  struct GpuJob {
    std::string host;
    int gpus = 0;
    bool nccl = false;
    ToolOutput list, nccl_output;
  };
  std::vector<GpuJob> gpu_jobs;
  for (const Host* h : in_.selected) {
    if (!HasGroup(*h, kGroupCompute) || !probes_.at(h->name).reached) continue;
    const NodeProbe& p = probes_.at(h->name);
    std::string why;
    if (p.pci_gpus == 0) why = "no GPUs on " + h->name;
    else if (!usable_compute_.count(h->name)) {
      why = h->name + " cannot run jobs (" + (not_usable_.count(h->name) ? not_usable_.at(h->name) : "not usable") + ")";
    }
    else if (!gpu_ok_.count(h->name)) why = "the GPUs of " + h->name + " are not usable (gpu.driver or gpu.count failed)";
    if (!why.empty()) {
      Add(Skip("slurm.gpu_job", kNode, h->name, why));
      Add(Skip("nccl.node", kNode, h->name, why));
      continue;
    }
    GpuJob job;
    job.host = h->name;
    job.gpus = p.pci_gpus;
    job.nccl = p.has_nccl_tests && Want("nccl.node");
    if (!p.has_nccl_tests) {
      Add(Skip("nccl.node", kNode, h->name, "nccl-tests not installed on " + h->name + " (" +
               ThresholdsOf(h->name).nccl_tests_dir + "/all_reduce_perf)"));
    }
    gpu_jobs.push_back(std::move(job));
  }
  std::vector<std::string> nccl_nodes;
  for (const GpuJob& j : gpu_jobs) {
    if (probes_.at(j.host).has_nccl_tests) nccl_nodes.push_back(j.host);
  }

  NodeProbe& submit = probes_.at(submit_host_->name);
  if (!submit.reached) {
    std::string why = "the submit host " + submit_host_->name + " is unreachable";
    Add(Fail("slurm.srun", kCluster, cluster, why));
    for (const GpuJob& j : gpu_jobs) Add(Fail("slurm.gpu_job", kNode, j.host, why));
    return;
  }
  ToolOutput srun;
  bool srun_ran = false;
  ToolOutput nccl_cluster;
  bool nccl_cluster_ran = false;
  const std::string none;
  std::vector<const Host*> submit_only = {submit_host_};
  in_.run_on(submit_only, [&, this](AgentConnection& agent, HostResult&) -> Task<void> {
    if (Want("slurm.srun") && !usable.empty() && SecondsLeft() > 0) {
      std::vector<std::string> argv = {"srun", "-N", std::to_string(usable.size()), "-w", Join(usable, ","),
                                       "--ntasks-per-node=1", "--immediate=60", "--time=5", "-J", "clusterctl-validate",
                                       "-l", "hostname"};
      srun = co_await ExecOnNode(agent, argv, none, Limit(180));
      srun_ran = true;
    }
    for (GpuJob& job : gpu_jobs) {
      if (SecondsLeft() <= 0) break;
      if (Want("slurm.gpu_job")) {
        std::vector<std::string> argv = {"srun", "-N", "1", "-w", job.host, "--gres=gpu:" + std::to_string(job.gpus),
                                         "--immediate=60", "--time=5", "-J", "clusterctl-validate", "nvidia-smi", "-L"};
        job.list = co_await ExecOnNode(agent, argv, none, Limit(180));
      }
      if (job.nccl) {
        const Thresholds& t = ThresholdsOf(job.host);
        std::vector<std::string> argv = {"srun", "-N", "1", "-w", job.host, "--gres=gpu:" + std::to_string(job.gpus),
                                         "--immediate=60", "--time=15", "-J", "clusterctl-validate",
                                         t.nccl_tests_dir + "/all_reduce_perf", "-b", "8", "-e", t.nccl_max_bytes, "-f",
                                         "2", "-g", std::to_string(job.gpus)};
        job.nccl_output = co_await ExecOnNode(agent, argv, none, Limit(900));
      }
    }
    if (Want("nccl.cluster") && nccl_nodes.size() >= 2 && SecondsLeft() > 0) {
      const Thresholds& t = ThresholdsOf(nccl_nodes.front());
      int gpus = probes_.at(nccl_nodes.front()).pci_gpus;
      std::vector<std::string> argv = {"srun", "-N", std::to_string(nccl_nodes.size()), "-w", Join(nccl_nodes, ","),
                                       "--ntasks-per-node=" + std::to_string(gpus), "--gres=gpu:" + std::to_string(gpus),
                                       "--mpi=pmix", "--immediate=60", "--time=15", "-J", "clusterctl-validate",
                                       t.nccl_tests_dir + "/all_reduce_perf", "-b", "8", "-e", t.nccl_max_bytes, "-f",
                                       "2", "-g", "1"};
      nccl_cluster = co_await ExecOnNode(agent, argv, none, Limit(900));
      nccl_cluster_ran = true;
    }
  });

  // slurm.srun
  if (usable.empty()) {
    Add(Fail("slurm.srun", kCluster, cluster, "no compute node can run jobs (slurm.node or munge.decode failed on each)"));
  } else if (!srun_ran) {
    DeadlinePassed("slurm.srun", kCluster, cluster);
  } else {
    std::set<std::string> answered;
    static const std::regex kTaskLine(R"(^\d+:\s*(\S+)\s*$)");
    std::smatch m;
    for (const std::string& line : Split(srun.out, '\n')) {
      if (std::regex_match(line, m, kTaskLine)) answered.insert(m[1]);
    }
    std::vector<std::string> missing;
    for (const std::string& n : usable) {
      if (!answered.count(n)) missing.push_back(n);
    }
    std::string measured = std::to_string(usable.size() - missing.size()) + "/" + std::to_string(usable.size()) + " nodes";
    if (srun.exit_code != 0 || !missing.empty()) {
      std::set<std::string> candidates(usable.begin(), usable.end());
      std::vector<std::string> named = NodesNamedIn(srun.Both(), candidates);
      std::string who = !named.empty() ? CollapseHostList(named) : CollapseHostList(missing);
      Add(Fail("slurm.srun", kCluster, cluster,
               "srun across " + CollapseHostList(usable) + " failed" + (who.empty() ? "" : " on " + who) +
                   (srun.timed_out ? " (timed out)" : " (exit " + std::to_string(srun.exit_code) + ")"),
               TailLines(srun.Both()), measured, "all " + std::to_string(usable.size())));
    } else {
      std::vector<std::string> left_out;
      for (const auto& [node, why] : not_usable_) left_out.push_back(node + " (" + why + ")");
      Add(Pass("slurm.srun", kCluster, cluster, measured, "all " + std::to_string(usable.size()),
               "srun -N" + std::to_string(usable.size()) + " hostname on " + CollapseHostList(usable) +
                   (left_out.empty() ? "" : "; left out: " + Join(left_out, ", "))));
    }
  }
  for (const GpuJob& job : gpu_jobs) {
    if (Want("slurm.gpu_job")) {
      if (job.list.out.empty() && job.list.err.empty() && job.list.exit_code == 0) DeadlinePassed("slurm.gpu_job", kNode, job.host);
      else Add(EvaluateGpuJob(job.host, job.list, job.gpus));
    }
    if (job.nccl) {
      const Thresholds& t = ThresholdsOf(job.host);
      auto report = ParseNvidiaSmiQuery(probes_.at(job.host).nvidia_smi.out);
      std::string model = report.ok() && !report->gpus.empty() ? report->gpus.front().name : "";
      double floor = t.nccl_busbw_min_gbps.value_or(DefaultNodeBusbwFloorGbps(model));
      Add(EvaluateNccl("nccl.node", kNode, job.host, job.nccl_output, floor, false, t));
    }
  }
  if (nccl_nodes.size() < 2) {
    Add(Skip("nccl.cluster", kCluster, cluster, nccl_nodes.empty() ? "nccl-tests not installed on any usable GPU node"
                                                                   : "nccl-tests on only one usable GPU node"));
  } else if (!nccl_cluster_ran) {
    DeadlinePassed("nccl.cluster", kCluster, cluster);
  } else {
    const Thresholds& t = ThresholdsOf(nccl_nodes.front());
    double ib_gbps = 0;
    for (const IbPortStatus& p : ExpectedIbPorts(SysfsIbPorts(probes_.at(nccl_nodes.front()).facts), t)) {
      if (p.state == "ACTIVE") ib_gbps += p.rate_gbps;
    }
    double floor = t.nccl_busbw_min_gbps.value_or(DefaultClusterBusbwFloorGbps(ib_gbps));
    Add(EvaluateNccl("nccl.cluster", kCluster, cluster, nccl_cluster, floor, true, t));
  }
}

// ---------------------------------------------------------------- phase 4

void Validator::Pairs() {
  if (!Want("ib.write_bw")) return;
  // Candidates: selected nodes whose ib.ports passed and that have perftest.
  std::vector<const Host*> nodes;
  std::map<std::string, IbPortStatus> port_of;
  for (const Host* h : in_.selected) {
    const NodeProbe& p = probes_.at(h->name);
    if (!p.reached || !p.has_ib_write_bw) continue;
    auto ok = std::find_if(results_.begin(), results_.end(), [&](const CheckResult& r) {
      return r.check == "ib.ports" && r.subject == h->name && r.outcome == CheckOutcome::kPass;
    });
    if (ok == results_.end()) continue;
    std::vector<IbPortStatus> expected = ExpectedIbPorts(SysfsIbPorts(p.facts), ThresholdsOf(h->name));
    if (expected.empty()) continue;
    port_of[h->name] = expected.front();
    nodes.push_back(h);
  }
  const std::string cluster = in_.inventory->cluster_name;
  if (nodes.size() < 2) {
    Add(Skip("ib.write_bw", CheckScope::kPair, cluster,
             "needs two nodes with healthy InfiniBand ports and perftest's ib_write_bw (found " +
                 std::to_string(nodes.size()) + ")"));
    return;
  }
  // The server's address the client reaches it on: an ib* interface address, else the management address.
  auto address_of = [](const Host& h) {
    for (const Interface& i : h.interfaces) {
      if (i.name.rfind("ib", 0) == 0 && !i.address.empty()) return i.address;
    }
    return h.address;
  };
  std::atomic<int> unit_counter{0};
  for (const std::vector<NodePair>& round : ScheduleRounds(RingPairs(nodes.size()))) {
    if (SecondsLeft() <= 10) {
      for (const NodePair& pair : round) {
        DeadlinePassed("ib.write_bw", CheckScope::kPair, nodes[pair.first]->name + "+" + nodes[pair.second]->name);
      }
      continue;
    }
    std::map<std::string, const Host*> server_for;  // client name -> server
    std::map<std::string, std::string> unit_of;     // server name -> transient unit
    std::map<std::string, ToolOutput> client_output, server_start;  // entries made before the fan-outs
    std::vector<const Host*> servers, clients;
    for (const NodePair& pair : round) {
      servers.push_back(nodes[pair.first]);
      clients.push_back(nodes[pair.second]);
      server_for[nodes[pair.second]->name] = nodes[pair.first];
      unit_of[nodes[pair.first]->name] = "clusterctl-ib-write-bw-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(unit_counter++);
      client_output[nodes[pair.second]->name];
      server_start[nodes[pair.first]->name];
    }
    const std::string none;
    // Servers: a transient unit that serves one test and ends, or is stopped
    // after 90 s whatever happens to this run.
    in_.run_on(servers, [&, this](AgentConnection& agent, HostResult& result) -> Task<void> {
      const Host& host = *result.host;
      const IbPortStatus& port = port_of.at(host.name);
      std::vector<std::string> argv = {"systemd-run", "--unit=" + unit_of.at(host.name), "--collect", "-p",
                                       "RuntimeMaxSec=90", "/usr/bin/ib_write_bw", "-d", port.device, "-i",
                                       std::to_string(port.port), "-s",
                                       std::to_string(ThresholdsOf(host.name).ib_write_bw_message_bytes), "-D", "5", "-F"};
      server_start.at(host.name) = co_await ExecOnNode(agent, argv, none, Limit(30));
    });
    in_.run_on(clients, [&, this](AgentConnection& agent, HostResult& result) -> Task<void> {
      const Host& host = *result.host;
      const Host& server = *server_for.at(host.name);
      const IbPortStatus& port = port_of.at(host.name);
      std::vector<std::string> wait = {"sleep", "1"};  // the server's listening socket
      ToolOutput waited = co_await ExecOnNode(agent, wait, none, Limit(5));
      (void)waited;
      std::vector<std::string> argv = {"/usr/bin/ib_write_bw", "-d", port.device, "-i", std::to_string(port.port), "-s",
                                       std::to_string(ThresholdsOf(host.name).ib_write_bw_message_bytes), "-D", "5",
                                       "-F", address_of(server)};
      client_output.at(host.name) = co_await ExecOnNode(agent, argv, none, Limit(60));
    });
    in_.run_on(servers, [&, this](AgentConnection& agent, HostResult& result) -> Task<void> {
      std::vector<std::string> argv = {"systemctl", "stop", unit_of.at(result.host->name)};
      ToolOutput stopped = co_await ExecOnNode(agent, argv, none, Limit(15));
      (void)stopped;
    });
    for (const NodePair& pair : round) {
      const Host& server = *nodes[pair.first];
      const Host& client = *nodes[pair.second];
      std::string subject = server.name + "+" + client.name;
      double rate = std::min(port_of.at(server.name).rate_gbps, port_of.at(client.name).rate_gbps);
      const ToolOutput& started = server_start.at(server.name);
      if (started.exit_code != 0) {
        Add(Fail("ib.write_bw", CheckScope::kPair, subject, "could not start the ib_write_bw server on " + server.name,
                 TailLines(started.Both())));
        continue;
      }
      Add(EvaluateIbWriteBw(subject, client_output.at(client.name), rate, ThresholdsOf(client.name)));
    }
  }
}

}  // namespace

ValidationOutcome RunValidation(const ValidationInputs& inputs) { return Validator(inputs).Run(); }

}  // namespace clusterctl
