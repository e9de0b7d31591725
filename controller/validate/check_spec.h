// A validation check as one spec (docs/validation.md, "Adding a check"):
// its name, scope and summary, what a node must have for it to apply
// (requirements), the checks that must pass first (prerequisites), the
// commands it reads on each node (probes), the verdict over their outputs and
// thresholds, and the variables it declares. Each check is one file under
// controller/validate/checks/ that registers its spec at start-up; nothing
// else lists checks: the report order, --checks, `clusterctl checks`, the
// probe phase, the per-node verdicts and the docs test all read the registry.
//
// Contract that keeps node checks runnable on the node itself (the Slurm
// health check): a spec's requirements read only the node's facts and role,
// its verdict only the NodeView, and nothing here reaches the network or the
// controller's state. Checks that need the controller's view of the node
// (`needs_controller`) or several nodes run only in validate. A check of
// several nodes (or a node check whose verdict needs other nodes: pings
// between them, a file written on one and read on the next) has no verdict
// but a cluster phase (`ClusterPhase`): it picks the nodes it can use, runs
// its job or pair runs through the `ClusterRun` the validation run gives it
// (cluster_run.h) and judges what they printed; its thresholds are variables
// it declares, like a node check's. A cluster phase calls only what
// clusterctl_node_checks links: clusterctl-health links every spec. (Older
// cross-node checks are still phases of validation_run itself.)
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/validate/check_result.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {

using Argv = std::vector<std::string>;

// One node's readings: its facts and what each probe printed.
struct NodeReadings {
  std::string host;
  nlohmann::json facts = nlohmann::json::object();
  int pci_gpus = 0;     // NVIDIA GPUs on the PCI bus (facts)
  int nvswitches = 0;   // NVSwitch functions on the PCI bus (facts)
  std::vector<std::string> modules;  // loaded kernel modules (facts)
  std::string driver_version;        // the NVIDIA driver's, "" when none (facts)
  std::map<std::string, ToolOutput> outputs;   // by probe id
  std::map<std::string, size_t> command_used;  // by probe id: which of its alternatives ran

  // The derived fields read from `facts`; a field of another type reads as absent.
  static NodeReadings FromFacts(std::string host, nlohmann::json facts);
  bool HasGpus() const { return pci_gpus > 0; }
  bool DriverModuleLoaded() const;
  bool HasIbPorts() const;
  // What the probe printed; a not-started output when it did not run.
  const ToolOutput& Output(const std::string& probe) const;

  // A reading several checks share, parsed on first use (nvidia-smi -q's
  // report serves seven checks: a 16 MiB answer is parsed once, not seven
  // times). A node's verdicts are judged one after another, not concurrently.
  template <class T, class Parse>
  const T& Parsed(const std::string& key, Parse parse) const {
    auto it = parsed_.find(key);
    if (it == parsed_.end()) it = parsed_.emplace(key, std::make_shared<const T>(parse())).first;
    return *static_cast<const T*>(it->second.get());
  }

  // Forgets what was parsed (after `outputs` changed).
  void ClearParsed() { parsed_.clear(); }

 private:
  mutable std::map<std::string, std::shared_ptr<const void>> parsed_;
};

// The node's place in the cluster, from the inventory.
struct NodeRole {
  bool slurm_cluster = false;  // the inventory has a Slurm controller and compute group (and Slurm checks run)
  bool slurm_host = false;     // in the controller, login or compute group
  bool compute = false;        // in the compute group
  bool controller = false;     // the Slurm controller
  bool directory_client = false;  // in a group the sssd role applies to (controller, controller_backup, login, compute)
};

// What the controller read about the Slurm cluster (validation_run's cross
// phase): the checks that compare a node with the controller read it.
struct SlurmReading {
  std::string controller;               // the controller's host name
  bool controller_reached = false;
  std::string controller_credential;    // munge -n on the controller ("" when it failed)
  std::string controller_conf_digest;   // sha256 of its slurm.conf, "" when unreadable
  int other_hosts = 0;  // the other Slurm hosts that answered the probe phase
  int decoded_elsewhere = 0, tried_elsewhere = 0;  // other nodes that decode the controller's credential
  // Not started where it did not run (a session lost, no credential to decode): no reading.
  std::map<std::string, ToolOutput> decoded_on_controller;  // a node's credential, unmunge'd on the controller
  std::map<std::string, ToolOutput> controller_decoded_here;  // the controller's credential, unmunge'd on the node
  std::string problem;        // why the node states cannot be judged ("": they can)
  std::string problem_check;  // the failed check behind `problem` ("": none failed, Slurm not installed)
  std::map<std::string, SlurmNodeState> nodes;  // slurmctld's view, by node name
};

// Everything a node verdict reads.
struct NodeView {
  const NodeReadings& node;
  const nlohmann::json& vars;  // the host's variables, with every check variable's default filled in
  NodeRole role;
  const SlurmReading* slurm = nullptr;  // null where the check runs on the node
  // A check that cannot be judged because `prerequisite` failed (validate:
  // a skip naming it when that failure is in the report, else a failure).
  std::function<CheckResult(const std::string& check, const std::string& prerequisite, const std::string& why)> blocked;

  const std::string& host() const { return node.host; }
  CheckResult Blocked(const std::string& check, const std::string& prerequisite, const std::string& why) const;
};

// A command a check reads on the node. Probes with the same id are one probe:
// it runs once per node, whichever checks read it.
struct ProbeSpec {
  std::string id;
  std::vector<Argv> commands;  // alternatives: the first that is installed gives the reading
  Argv (*command_for)(const NodeView&) = nullptr;  // instead of `commands`: a command from the thresholds or variables
  int timeout_s = 30;
  bool (*when)(const NodeReadings&) = nullptr;  // null: on every node the check applies to
  std::string executable;  // run only if this file is executable there; else the reading is "not installed"
  // A reading that is not settled yet (chronyd not synchronised): run
  // `settle` (up to settle_timeout_s), then read again.
  bool (*settled)(const ToolOutput&) = nullptr;
  Argv settle;
  int settle_timeout_s = 0;

  std::vector<Argv> CommandsFor(const NodeView& view) const;
};

// A condition a node must meet for the check to apply; when it does not, the
// check is skipped with `unmet`'s reason. Reads only facts and role.
struct Requirement {
  bool (*holds)(const NodeView&);
  std::string (*unmet)(const NodeView&);
};

// A check that must pass first. A node check whose prerequisite failed is
// blocked with `why`; one whose prerequisite was skipped is skipped alike.
// Cross-node checks list theirs so the probe phase reads what they need.
struct Prerequisite {
  const char* check;
  std::string (*why)(const NodeView&) = nullptr;
};

using NodeVerdict = CheckResult (*)(const NodeView&);

class ClusterRun;  // cluster_run.h

// Which run a check belongs to: the functional checks prove the cluster
// works (every `validate`); the acceptance checks measure each node against
// floors and its peers (`validate --level acceptance`, after the functional
// ones: docs/validation.md, "Acceptance").
enum class CheckLevel { kFunctional, kAcceptance };

// A cluster check's own phase: after the node verdicts and the job phase,
// `run` chooses the usable nodes, runs its commands through the ClusterRun
// and adds its results, every way it ends (a skip, a failure, a verdict).
// It is called only when the check is selected; with `slurm_jobs` only when
// Slurm jobs can run at all: otherwise the validation run gives it the job
// checks' common result (no Slurm cluster or no compute node selected: a
// skip; slurmctld not read: blocked; the submit host unreachable: a failure).
// A node check's phase (a job per node: slurm.gpu_job, nccl.node) adds a
// result per compute node it judges; slurmctld not read blocks it on every
// compute node, and with the submit host unreachable it runs and fails the
// nodes it would have run jobs on (ClusterRun::Reached says so).
struct ClusterPhase {
  void (*run)(ClusterRun&) = nullptr;
  bool slurm_jobs = false;
};

struct CheckSpec {
  std::string name;
  CheckScope scope = CheckScope::kNode;
  std::string summary;
  int rank = 0;  // report position: the report, `clusterctl checks` and docs/validation.md's table follow it
  std::vector<Requirement> requirements;
  std::vector<Prerequisite> prerequisites;
  std::vector<const ProbeSpec*> probes;
  NodeVerdict verdict = nullptr;  // null: judged by its cluster phase or by a phase of validation_run (reachable, older cross-node checks)
  ClusterPhase cluster_phase;     // the phase that judges a check without a node verdict (cluster, pair, or node checks across nodes)
  bool needs_controller = false;  // the verdict reads NodeView::slurm
  // Read from the controller without the node's SSH (the BMC: bmc.*): a
  // node that did not answer over SSH is still judged by the check's phase.
  bool out_of_band = false;
  std::string variables;          // YAML declarations of the variables only this check reads (variable_spec.h)
  CheckLevel level = CheckLevel::kFunctional;
};

// Registers a spec at start-up (a static object in the check's file).
// REQUIRES: no other spec of that name or rank, probes of one id are one
// object, and a cluster phase only on a check without a node verdict
// (aborts otherwise: a build mistake, caught by any test).
class CheckRegistration {
 public:
  explicit CheckRegistration(CheckSpec spec);
};

// Every spec, in report order.
const std::vector<const CheckSpec*>& CheckSpecs();
const CheckSpec* FindCheckSpec(const std::string& name);

// The probes to run on one node, each once, in report order of the checks
// that read them: the needed node checks whose requirements hold there.
std::vector<const ProbeSpec*> ProbesFor(const NodeView& view, const std::set<std::string>& needed);

// The first requirement `spec` misses on the node, as the skip's reason; "" when all hold.
std::string UnmetRequirement(const CheckSpec& spec, const NodeView& view);

// A node check that a node can judge alone (the Slurm health check): node
// scope, with a verdict (the cross-node ones are judged by validate's later phases).
bool RunsOnNodeAlone(const CheckSpec& spec);

// Judges one node check (it has a verdict) on a node, the same way in
// validate and on the node (clusterctl-health): a skip where a requirement
// is unmet or a prerequisite was skipped, `view.Blocked` where a
// prerequisite failed or was not judged, else the spec's verdict.
// `judged`: the node's earlier verdicts (the registry orders prerequisites first).
CheckResult JudgeNodeCheck(const CheckSpec& spec, const NodeView& view, const std::map<std::string, CheckResult>& judged);

}  // namespace clusterctl
