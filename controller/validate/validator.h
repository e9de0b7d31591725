// The validation run's internals, shared by its files: validation_run.cc
// (the run, probe and cross phases), node_verdicts.cc (the per-node checks),
// cluster_phases.cc (the cluster checks' own phases, through ClusterRun: the Slurm jobs, NCCL, MPI, the
// ib_write_bw pairs, IPoIB, NFS and monitoring). Not an interface: include validation_run.h instead.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/validate/check_spec.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/validation_run.h"

namespace clusterctl::validation_internal {

constexpr CheckScope kNode = CheckScope::kNode;
constexpr CheckScope kCluster = CheckScope::kCluster;

// What phase 1 found on one host.
struct NodeProbe {
  bool reached = false;
  std::string unreachable;  // why, when not reached
  NodeReadings readings;    // facts and the probes' outputs
};

bool HasGroup(const Host& host, const char* group);

// One validation run: the phases of validation_run.h in order, each adding
// CheckResults; later phases read what earlier ones found (probes_, the
// usable nodes) to skip what cannot run and say why. It is the ClusterRun
// of the cluster checks' own phases (cluster_phases.cc).
class Validator : private ClusterRun {
 public:
  explicit Validator(const ValidationInputs& in)
      : in_(in), clock_(in.clock ? *in.clock : system_clock_), deadline_(clock_.Monotonic() + in.deadline) {}

  ValidationOutcome Run();

 private:
  bool Want(const std::string& check) const { return in_.checks.Has(check); }
  bool Needed(const std::string& check) const { return needed_.count(check) > 0; }
  bool Selected(const std::string& host) const { return selected_names_.count(host) > 0; }
  int SecondsLeft() const override {
    auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline_ - clock_.Monotonic()).count();
    return static_cast<int>(std::max<int64_t>(left, 0));
  }
  // A command's time limit: its own, but never past the run's deadline.
  int Limit(int seconds) const override { return std::max(1, std::min(seconds, SecondsLeft())); }
  void Add(CheckResult r) override {
    if (Want(r.check)) results_.push_back(std::move(r));
  }
  using ClusterRun::Blocked;  // a check whose prerequisite failed (cluster_run.h)
  // Whether `check` failed on `subject` (or, for a cluster check, at all) in the report so far.
  bool FailureReported(const std::string& check, const std::string& subject) const override {
    return std::any_of(results_.begin(), results_.end(), [&](const CheckResult& r) {
      return r.check == check && r.outcome == CheckOutcome::kFail && (r.subject == subject || r.scope == kCluster);
    });
  }
  std::string DeadlineText() const override {
    return "not run: the validation's deadline (" + std::to_string(in_.deadline.count()) + " s) passed first";
  }
  void Progress(const std::string& line) override {
    if (in_.progress) in_.progress(line);
  }
  void DeadlinePassed(const std::string& check, CheckScope scope, const std::string& subject) {
    Add(Fail(check, scope, subject, DeadlineText()));
  }

  void Probe();
  void CrossCheck();
  // The registered cluster phases (check_spec.h), in report order; and ClusterRun for them (cluster_phases.cc).
  void ClusterPhases();
  // A `slurm_jobs` phase's check given the job checks' common result where
  // Slurm jobs cannot run; false: the phase runs.
  bool JobsCannotRun(const CheckSpec& spec);
  const std::string& cluster() const override { return in_.inventory->cluster_name; }
  std::vector<std::string> UsableComputeNodes() const override;
  std::map<std::string, std::string> UnusableComputeNodes() const override { return not_usable_; }
  std::vector<std::string> ComputeNodes() const override;
  const std::string& SubmitHost() const override;
  bool Reached(const std::string& host) const override;
  NodeView View(const std::string& host) const override;
  std::vector<Result<ToolOutput>> RunCommands(const std::vector<HostCommand>& commands) override;
  std::vector<ProbedHost> ProbedHosts() const override;
  std::optional<CheckOutcome> NodeOutcome(const std::string& check, const std::string& host) const override;
  bool Reports(const std::string& check) const override { return Want(check); }
  const Inventory& inventory() const override { return *in_.inventory; }
  Result<nlohmann::json> NfsView() const override;
  std::vector<PowerResult> ThroughBmcs(const std::vector<const Host*>& hosts, PowerAction action) override;
  static constexpr size_t kBmcForks = 32;  // ipmitool processes at once (each waits on its BMC)
  void NodeVerdicts();
  void UnreachableVerdicts(const std::string& name, const NodeProbe& probe);
  // One node check on one node: its requirements, its prerequisites' verdicts, then its own.
  // Which compute nodes can run Slurm jobs (ClusterRun::UsableComputeNodes), from their node verdicts.
  void NoteUsability(const Host& host, const std::map<std::string, CheckResult>& verdicts);
  NodeView ViewOf(const Host& host) const;
  NodeRole RoleOf(const Host& host) const;

  Task<void> ProbeHost(const Host& host, AgentSession& agent, HostResult& result);
  Task<ToolOutput> RunProbe(AgentSession& agent, const ProbeSpec& probe, const NodeView& view, size_t& used);
  void ReadControllerProbes();
  Task<void> CrossOnHost(AgentSession& agent, const Host& host,
                         const std::vector<std::pair<std::string, std::string>>& credentials);
  void JudgeController(const ToolOutput& ping);
  bool ReadsSlurmStates() const { return Needed("slurm.controller") || Needed("slurm.node") || Needed("slurm.gres"); }

  const ValidationInputs& in_;
  SystemClock system_clock_;  // before clock_: the clock when the inputs name none
  const Clock& clock_;
  std::chrono::steady_clock::time_point deadline_;
  std::set<std::string> selected_names_;
  const Host* controller_ = nullptr;
  const Host* submit_host_ = nullptr;
  std::vector<const Host*> slurm_hosts_;  // controller, login, compute (selected or helpers)
  std::vector<const Host*> participants_;
  std::map<std::string, NodeProbe> probes_;  // every participant; entries made before any fan-out
  std::set<std::string> needed_;  // the selected checks and their prerequisites (check_spec.h)
  std::set<std::string> needed_from_helpers_;  // of those, the ones that read the controller's view
  std::map<std::string, nlohmann::json> check_vars_;  // per host: its variables, check variables' defaults filled in
  SlurmReading slurm_;  // the controller's reading (phase 2); its problem: why Slurm's cluster-wide checks cannot run
  ToolOutput controller_ping_;  // scontrol ping on the controller
  // scontrol show node on the controller, before slurm_ takes the states.
  Result<std::vector<SlurmNodeState>> slurm_nodes_read_ = Status::Unavailable("scontrol show node was not run");
  std::set<std::string> usable_compute_;   // slurm.node passed and munge.decode did not fail
  std::map<std::string, std::string> not_usable_;  // compute node -> the failed check that keeps jobs off it
  std::map<std::string, std::map<std::string, CheckOutcome>> node_outcomes_;  // host -> node check -> its verdict
  std::vector<CheckResult> results_;
  ValidationOutcome outcome_;
};

}  // namespace clusterctl::validation_internal
