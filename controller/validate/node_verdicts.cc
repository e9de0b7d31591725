// The per-node verdicts of a validation run (see validator.h).
#include <algorithm>
#include <string_view>

#include "common/strings.h"
#include "common/json_text.h"
#include "controller/validate/validator.h"

namespace clusterctl::validation_internal {

void Validator::NodeVerdicts() {
  // The controller is probed only when a Slurm check runs (or it is selected).
  const NodeProbe* head = nullptr;
  if (controller_ != nullptr) {
    if (auto it = probes_.find(controller_->name); it != probes_.end()) head = &it->second;
  }
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
    if (!p.reached) {
      UnreachableVerdicts(name, p);
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
      Add(Blocked("munge.decode", kNode, name, "slurm.controller", "the controller is unreachable"));
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
    } else if (controller_problem_check_ == "slurm.node") {
      Add(Fail("slurm.node", kNode, name, controller_problem_, {}, "unknown"));
      Add(Blocked("slurm.gres", kNode, name, "slurm.node", controller_problem_));
    } else if (!controller_problem_.empty()) {
      Add(Blocked("slurm.node", kNode, name, controller_problem_check_, controller_problem_));
      Add(Blocked("slurm.gres", kNode, name, controller_problem_check_, controller_problem_));
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

    GpuVerdicts(*host, p, t);

    // InfiniBand
    bool has_ib = p.facts.contains("ib_ports") && !p.facts["ib_ports"].empty();
    if (!has_ib) {
      Add(Skip("ib.ports", kNode, name, "no InfiniBand ports on " + name));
    } else {
      CheckResult ports_result;
      if (p.ib_source == "sysfs") {
        ports_result = EvaluateIbPorts(name, SysfsIbPorts(p.facts), JsonText(p.facts["ib_ports"]), "sysfs", t);
      } else {
        Result<std::vector<IbPortStatus>> ports =
            p.ib_source == "ibstat" ? ParseIbstat(p.ib_tool.out) : ParseIbvDevinfo(p.ib_tool.out);
        if (ports.ok() && p.ib_tool.exit_code != 0) {
          ports = Status::Unavailable(p.ib_source + " exited " + std::to_string(p.ib_tool.exit_code));
        }
        ports = AgainstSysfs(std::move(ports), SysfsIbPorts(p.facts));
        ports_result = EvaluateIbPorts(name, ports, p.ib_tool.Both(), p.ib_source, t);
      }
      if (ports_result.outcome == CheckOutcome::kPass) ib_ok_.insert(name);
      Add(std::move(ports_result));
    }
    if (p.pci_gpus == 0 || !has_ib) {
      Add(Skip("ib.peermem", kNode, name, p.pci_gpus == 0 ? "no GPUs on " + name + " (peer memory is for GPU+InfiniBand nodes)"
                                                       : "no InfiniBand ports on " + name));
    } else {
      Add(EvaluatePeerMemory(name, p.modules, p.facts.is_object() ? p.facts.value("gpudirect", nlohmann::json()) : nullptr));
    }
  }
}


// No reading, no pass (docs/validation.md): a selected host that could not
// be reached fails every node check selected for it, whether or not it
// would apply (its facts are unknown too), so a run over dead nodes can
// never exit 0. The cluster checks and the pairs answer for themselves.
void Validator::UnreachableVerdicts(const std::string& name, const NodeProbe& p) {
  std::string why = "not checked: " + name + " is unreachable (" + (p.unreachable.empty() ? "no answer" : p.unreachable) + ")";
  for (const CheckInfo& check : CheckCatalogue()) {
    if (check.scope != kNode || std::string_view(check.name) == "reachable") continue;
    Add(Fail(check.name, kNode, name, why, {}, "unknown"));
  }
}

void Validator::GpuVerdicts(const Host& host, const NodeProbe& p, const Thresholds& t) {
  const std::string& name = host.name;
  // The checks that read the driver's tools; gpu.driver and gpu.xid do not.
  static const std::vector<const char*> kNeedDriver = {"gpu.count", "gpu.persistence", "gpu.ecc", "gpu.pcie",
                                                       "gpu.clocks", "gpu.nvlink", "gpu.dcgm"};
  if (p.pci_gpus == 0) {
    std::string why = "no NVIDIA GPUs on the PCI bus of " + name;
    Add(Skip("gpu.driver", kNode, name, why));
    for (const char* check : kNeedDriver) Add(Skip(check, kNode, name, why));
    Add(Skip("gpu.xid", kNode, name, why));
    return;
  }
  CheckResult driver = EvaluateGpuDriver(name, p.pci_gpus, p.modules, p.driver_version);
  bool loaded = driver.outcome == CheckOutcome::kPass;
  Add(driver);
  Add(EvaluateXid(name, p.xid_log, p.kernel_log_sample, t));
  if (!loaded) {
    for (const char* check : kNeedDriver) {
      Add(Blocked(check, kNode, name, "gpu.driver", "the NVIDIA driver is not loaded on " + name + " (gpu.driver failed)"));
    }
    return;
  }
  if (!p.nvidia_smi.started) {
    for (const char* check : kNeedDriver) {
      Add(Fail(check, kNode, name, "nvidia-smi is not installed on " + name + " although the driver is loaded"));
    }
    return;
  }
  int expected = t.gpus_expected.value_or(p.pci_gpus);
  Result<NvidiaSmiReport> report =
      p.nvidia_smi.Succeeded() ? ParseNvidiaSmiQuery(p.nvidia_smi.out)
                               : Result<NvidiaSmiReport>(Status::Unavailable(ExitDescription(p.nvidia_smi)));
  std::vector<CheckResult> health = EvaluateGpuHealth(name, report, p.nvidia_smi.Both(), expected, t);
  if (t.gpus_expected && p.pci_gpus != expected) {
    health[0] = Fail("gpu.count", kNode, name,
                     "PCI detection finds " + std::to_string(p.pci_gpus) + " GPUs, the inventory expects " +
                         std::to_string(expected), {}, std::to_string(p.pci_gpus) + " on PCI",
                     "== " + std::to_string(expected) + " (inventory)");
  }
  if (health[0].outcome == CheckOutcome::kPass) gpu_ok_.insert(name);
  if (report.ok() && !report->gpus.empty()) probes_.at(name).gpu_model = report->gpus.front().name;
  for (CheckResult& r : health) Add(std::move(r));
  if (report.ok()) {
    Add(EvaluateGpuPcie(name, *report, t));
    Add(EvaluateGpuClocks(name, *report));
    if (Want("gpu.nvlink")) Add(EvaluateGpuNvlink(name, p.nvlink_status, *report, p.nvswitches, t));
  } else {
    for (const char* check : {"gpu.pcie", "gpu.clocks", "gpu.nvlink"}) {
      Add(Fail(check, kNode, name, "nvidia-smi: " + report.status().message(), CauseEvidence(p.nvidia_smi.Both()), "unknown"));
    }
  }
  if (!Want("gpu.dcgm")) return;
  if (!p.has_dcgm) Add(Skip("gpu.dcgm", kNode, name, "DCGM is not installed on " + name + " (no /usr/bin/dcgmi)"));
  else Add(EvaluateDcgmDiag(name, p.dcgm_diag));
}

}  // namespace clusterctl::validation_internal
