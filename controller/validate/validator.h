// The validation run's internals, shared by its files: validation_run.cc
// (the run, probe and cross phases), node_verdicts.cc (the per-node checks),
// job_checks.cc (Slurm jobs, NCCL and ib_write_bw pairs). Not an interface:
// include validation_run.h instead.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/validate/checks.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/validation_run.h"

namespace clusterctl::validation_internal {

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
  ToolOutput kernel_log_sample;     // the last kernel log line since boot (is there a log to read Xids from?)
  ToolOutput nvlink_status;         // nvidia-smi nvlink -s
  ToolOutput dcgm_diag;             // dcgmi diag -r 1
  bool has_dcgm = false;
  int nvswitches = 0;               // NVIDIA NVSwitch functions on the PCI bus (facts)
  std::string ib_source;            // "ibstat", "ibv_devinfo", "sysfs"
  std::string gpu_model;            // nvidia-smi's product name of the first GPU (NCCL floors)
  bool has_ib_write_bw = false;
  bool has_nccl_tests = false;
  ToolOutput unmunge_controller;    // phase 2: the controller's credential decoded here
  ToolOutput unmunge_here;          // phase 2: this node's credential decoded on the controller
};

// The kernel modules the facts list.
std::vector<std::string> ModulesOf(const nlohmann::json& facts);
// IB ports from the facts' sysfs reading (when neither ibstat nor ibv_devinfo is installed).
std::vector<IbPortStatus> SysfsIbPorts(const nlohmann::json& facts);
bool HasGroup(const Host& host, const char* group);

// One validation run: the phases of validation_run.h in order, each adding
// CheckResults; later phases read what earlier ones found (probes_, the
// usable nodes) to skip what cannot run and say why.
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
  // A check that cannot run because `prerequisite` failed: skipped naming
  // the cause when that failure is in the report, failed otherwise, so no
  // --checks or --limit can hide a failure behind a skip (docs/validation.md,
  // "No reading, no pass"). An empty prerequisite is no failure (Slurm not
  // installed): a skip.
  CheckResult Blocked(const std::string& check, CheckScope scope, const std::string& subject,
                      const std::string& prerequisite, const std::string& why) const {
    if (prerequisite.empty() || FailureReported(prerequisite, subject)) return Skip(check, scope, subject, why);
    return Fail(check, scope, subject, "not checked: " + why, {}, "unknown");
  }
  // Whether `check` failed on `subject` (or, for a cluster check, at all) in the report so far.
  bool FailureReported(const std::string& check, const std::string& subject) const {
    return std::any_of(results_.begin(), results_.end(), [&](const CheckResult& r) {
      return r.check == check && r.outcome == CheckOutcome::kFail && (r.subject == subject || r.scope == kCluster);
    });
  }
  void DeadlinePassed(const std::string& check, CheckScope scope, const std::string& subject) {
    Add(Fail(check, scope, subject, "not run: the validation's deadline (" + std::to_string(in_.deadline.count()) +
                                         " s) passed first"));
  }

  void Probe();
  void CrossCheck();
  void Jobs();
  void Pairs();
  void Fabric();
  void Monitoring();  // service_run.cc
  void Nfs();         // service_run.cc
  void NodeVerdicts();
  void UnreachableVerdicts(const std::string& name, const NodeProbe& probe);
  void GpuVerdicts(const Host& host, const NodeProbe& probe, const Thresholds& t);

  Task<void> ProbeHost(const Host& host, AgentSession& agent, HostResult& result);

  const ValidationInputs& in_;
  std::chrono::steady_clock::time_point deadline_;
  std::set<std::string> selected_names_;
  const Host* controller_ = nullptr;
  const Host* submit_host_ = nullptr;
  std::vector<const Host*> slurm_hosts_;  // controller, login, compute (selected or helpers)
  std::vector<const Host*> participants_;
  std::map<std::string, NodeProbe> probes_;  // every participant; entries made before any fan-out
  std::string controller_problem_;  // why Slurm's cluster-wide checks cannot run (empty: they can)
  std::string controller_problem_check_;  // the failed check behind it ("": no failure, Slurm not installed)
  std::map<std::string, SlurmNodeState> slurm_nodes_;
  std::set<std::string> usable_compute_;   // slurm.node passed and munge.decode did not fail
  std::map<std::string, std::string> not_usable_;  // compute node -> the failed check that keeps jobs off it
  std::set<std::string> gpu_ok_;           // gpu.driver and gpu.count passed
  std::set<std::string> ib_ok_;            // ib.ports passed
  std::vector<CheckResult> results_;
  ValidationOutcome outcome_;
};

}  // namespace clusterctl::validation_internal
