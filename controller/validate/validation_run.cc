#include "controller/validate/validation_run.h"

#include <algorithm>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/scontrol_nodes.h"
#include "controller/validate/system_tools.h"
#include "controller/validate/validator.h"

namespace clusterctl {
namespace validation_internal {

std::vector<std::string> ModulesOf(const nlohmann::json& facts) {
  std::vector<std::string> modules;
  if (facts.contains("modules") && facts["modules"].is_array()) {
    for (const auto& m : facts["modules"]) {
      if (m.is_string()) modules.push_back(m.get<std::string>());
    }
  }
  return modules;
}

namespace {

// A node's facts are its own word: a field of another type reads as absent
// (nlohmann's value() throws for it, which ended the whole validation;
// common/json_fields.h).
constexpr int64_t kMaxCount = 1'000'000;

double RateField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? std::clamp(it->get<double>(), 0.0, 1e6) : 0.0;
}

}  // namespace

std::vector<IbPortStatus> SysfsIbPorts(const nlohmann::json& facts) {
  std::vector<IbPortStatus> ports;
  if (!facts.contains("ib_ports") || !facts["ib_ports"].is_array()) return ports;
  for (const auto& p : facts["ib_ports"]) {
    if (!p.is_object()) continue;
    IbPortStatus port;
    port.device = TextAt(p, "device");
    port.port = static_cast<int>(CountAt(p, "port", kMaxCount));
    port.state = NormalizePortState(TextAt(p, "state"));
    port.phys_state = NormalizePortState(TextAt(p, "phys_state"));
    port.rate_gbps = RateField(p, "rate_gbps");
    port.link_layer = TextAt(p, "link_layer");
    port.line = port.device + " port " + std::to_string(port.port) + ": state " + TextAt(p, "state") +
                ", phys_state " + TextAt(p, "phys_state") + ", rate " + TextAt(p, "rate_text") + ", link_layer " +
                port.link_layer + " (sysfs)";
    ports.push_back(std::move(port));
  }
  return ports;
}

bool HasGroup(const Host& host, const char* group) {
  return std::find(host.groups.begin(), host.groups.end(), group) != host.groups.end();
}


namespace {

bool SlurmChecksWanted(const CheckSelection& s) {
  return s.HasAny({"munge.decode", "slurm.controller", "slurm.node", "slurm.conf", "slurm.gres", "slurm.srun",
                   "slurm.gpu_job", "nccl.node", "nccl.cluster"});
}


}  // namespace

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
  Fabric();
  Nfs();
  Monitoring();

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

Task<void> Validator::ProbeHost(const Host& host, AgentSession& agent, HostResult& result) {
  NodeProbe& probe = probes_.at(host.name);
  auto facts = co_await agent.Facts(std::chrono::steady_clock::now() + std::chrono::seconds(Limit(60)));
  if (!facts.ok()) {
    result.Fail(facts.status());
    co_return;
  }
  probe.reached = true;
  probe.facts = std::move(facts).value();
  result.data = probe.facts;
  probe.modules = ModulesOf(probe.facts);
  if (probe.facts.contains("pci")) probe.pci_gpus = static_cast<int>(CountAt(probe.facts["pci"], "gpu_count", kMaxCount));
  if (probe.facts.contains("pci")) probe.nvswitches = static_cast<int>(CountAt(probe.facts["pci"], "nvswitch_count", kMaxCount));
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
      in_.checks.HasAny({"gpu.count", "gpu.persistence", "gpu.ecc", "gpu.pcie", "gpu.clocks", "gpu.nvlink",
                         "slurm.gpu_job", "nccl.node", "nccl.cluster"})) {
    std::vector<std::string> argv = {"nvidia-smi", "-q"};
    probe.nvidia_smi = co_await ExecOnNode(agent, argv, none, Limit(60));
  }
  if (probe.pci_gpus > 0 && Want("gpu.xid")) {
    std::vector<std::string> argv = {"journalctl", "-q", "-k", "-b", "0", "-o", "short-precise", "--no-pager",
                                     "--grep", "NVRM"};  // every driver line: Xids and the fatal messages without one
    probe.xid_log = co_await ExecOnNode(agent, argv, none, Limit(60));
    std::vector<std::string> sample = {"journalctl", "-q", "-k", "-b", "0", "-n", "1", "-o", "short-precise", "--no-pager"};
    probe.kernel_log_sample = co_await ExecOnNode(agent, sample, none, Limit(30));
  }
  if (probe.pci_gpus > 0 && driver_loaded && Want("gpu.nvlink")) {
    std::vector<std::string> argv = {"nvidia-smi", "nvlink", "-s"};
    probe.nvlink_status = co_await ExecOnNode(agent, argv, none, Limit(60));
  }
  if (probe.pci_gpus > 0 && driver_loaded && Want("gpu.dcgm")) {
    probe.has_dcgm = co_await IsExecutableOnNode(agent, "/usr/bin/dcgmi", Limit(10));
    if (probe.has_dcgm) {
      std::vector<std::string> argv = {"dcgmi", "diag", "-r", "1"};
      probe.dcgm_diag = co_await ExecOnNode(agent, argv, none, Limit(300));
    }
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
    probe.has_ib_write_bw = co_await IsExecutableOnNode(agent, "/usr/bin/ib_write_bw", Limit(10));
  }
  if (probe.pci_gpus > 0 && in_.checks.HasAny({"nccl.node", "nccl.cluster"})) {
    probe.has_nccl_tests =
        co_await IsExecutableOnNode(agent, ThresholdsOf(host.name).nccl_tests_dir + "/all_reduce_perf", Limit(10));
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
      outcome_.facts.emplace_back(r.host->name, probe.facts);
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

void Validator::CrossCheck() {
  const std::string& cluster = in_.inventory->cluster_name;
  if (slurm_hosts_.empty()) {
    Add(Skip("slurm.controller", kCluster, cluster, "no Slurm cluster in the inventory (no controller or compute group)"));
    return;
  }
  NodeProbe& head = probes_.at(controller_->name);
  if (!head.reached) {
    controller_problem_ = "the Slurm controller " + controller_->name + " is unreachable: " + head.unreachable;
    controller_problem_check_ = "slurm.controller";
    Add(Fail("slurm.controller", kCluster, cluster, controller_problem_));
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
  ToolOutput ping;
  Result<std::vector<SlurmNodeState>> nodes = Status::Unavailable("scontrol show node was not run");
  std::map<std::string, ToolOutput> decoded_on_controller;
  for (const auto& [name, credential] : credentials) decoded_on_controller[name];
  in_.run_on(hosts, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
    const Host& host = *result.host;
    NodeProbe& probe = probes_.at(host.name);
    if (&host == controller_) {
      if (in_.checks.HasAny({"slurm.controller", "slurm.node", "slurm.gres", "slurm.srun", "slurm.gpu_job", "nccl.node",
                             "nccl.cluster"})) {
        std::vector<std::string> ping_argv = {"scontrol", "ping"};
        ping = co_await ExecOnNode(agent, ping_argv, none, Limit(30));
        ToolOutput json_run = co_await ExecOnNode(agent, ScontrolShowNodeJsonArgv(), none, Limit(30));
        nodes = ReadScontrolNodesJson(json_run);
        if (!nodes.ok()) {
          std::string json_problem = nodes.status().message();
          ToolOutput text_run = co_await ExecOnNode(agent, ScontrolShowNodeTextArgv(), none, Limit(30));
          nodes = ReadScontrolNodesText(text_run, json_problem);
        }
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
  if (!ping.started) {
    controller_problem_ = "Slurm is not installed on the controller " + controller_->name + " (no scontrol)";
    Add(Skip("slurm.controller", kCluster, cluster, controller_problem_));
  } else {
    auto controllers = ParseScontrolPing(ping.out);
    bool up = controllers.ok() && std::any_of(controllers->begin(), controllers->end(), [](const auto& c) { return c.second; });
    if (up) {
      Add(Pass("slurm.controller", kCluster, cluster, "UP", "UP",
               std::string(Trim(ping.out))));
    } else {
      Add(Fail("slurm.controller", kCluster, cluster,
               "slurmctld is not responding on " + controller_->name, TailLines(ping.Both()), "DOWN", "UP"));
      controller_problem_ = "slurmctld on " + controller_->name + " is not responding (slurm.controller failed)";
      controller_problem_check_ = "slurm.controller";
    }
    if (up && nodes.ok()) {
      for (SlurmNodeState& n : *nodes) slurm_nodes_[n.name] = std::move(n);
    } else if (up) {
      // No reading of the nodes' states: slurm.node fails on each compute node (node_verdicts.cc).
      controller_problem_ = "no reading of the nodes' states: " + nodes.status().message();
      controller_problem_check_ = "slurm.node";
    }
  }
}


}  // namespace validation_internal

ValidationOutcome RunValidation(const ValidationInputs& inputs) { return validation_internal::Validator(inputs).Run(); }

}  // namespace clusterctl
