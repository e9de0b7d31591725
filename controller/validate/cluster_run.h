// What a cluster check's phase (check_spec.h, `ClusterPhase`) reads and does:
// the nodes it may use, what the probe phase read on each, commands run on
// hosts, and the results it adds. The validation run implements it
// (validator.h); a check's unit test fakes it (checks/spec_test_util.h). No
// SSH or state here: a phase reaches hosts only through `RunCommands`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "controller/power/power_run.h"
#include "controller/validate/check_result.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/tool_output.h"
#include "inventory/model.h"

namespace clusterctl {

// Why a Slurm job check fails when no compute node is usable.
inline constexpr const char* kNoUsableComputeNode = "no compute node can run jobs (slurm.node or munge.decode failed on each)";

// One command a phase runs on a host: an argument vector (never a shell
// line), with `input` on stdin, stopped after `timeout_s` or at the run's
// deadline, whichever comes first.
struct HostCommand {
  std::string host;
  Argv argv;
  int timeout_s = 60;
  std::string input;
};

class ClusterRun {
 public:
  virtual ~ClusterRun() = default;

  // The subject of cluster-scope results: the inventory's cluster name.
  virtual const std::string& cluster() const = 0;

  // The compute nodes Slurm jobs can run on (slurm.node passed and
  // munge.decode did not fail there), sorted by name.
  virtual std::vector<std::string> UsableComputeNodes() const = 0;

  // The compute nodes jobs cannot run on, each with why ("slurm.node failed",
  // "munge.decode failed"); a node whose slurm.node was skipped is in neither list.
  virtual std::map<std::string, std::string> UnusableComputeNodes() const = 0;

  // The selected compute nodes that answered the probe phase, in the
  // selection's order (usable for jobs or not).
  virtual std::vector<std::string> ComputeNodes() const = 0;

  // The host jobs are submitted from: the first login node, else the controller.
  virtual const std::string& SubmitHost() const = 0;

  // Whether `host` answered the probe phase (an unreachable submit host runs no job).
  virtual bool Reached(const std::string& host) const = 0;

  // Whether the node check `check` passed on `host`, judged whether or not
  // the selection reports it (gpu.count passed: the node's GPUs can take a job).
  bool NodeCheckPassed(const std::string& check, const std::string& host) const {
    return NodeOutcome(check, host) == CheckOutcome::kPass;
  }

  // Whether `check` failed on `subject` (or, a cluster check, at all) in the report so far.
  virtual bool FailureReported(const std::string& check, const std::string& subject) const = 0;

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

  // The time limit a command asking for `seconds` runs under: its own, but
  // never past the run's deadline (at least 1). RunCommands applies it; a
  // verdict that names the limit a command was stopped at reads it here.
  virtual int Limit(int seconds) const = 0;

  // What the probe phase read on `host` (facts, probe outputs), with its
  // thresholds and variables (every check variable's default filled in).
  // REQUIRES: `host` took part in the probe phase (a selected node, the submit host).
  virtual NodeView View(const std::string& host) const = 0;

  // Runs `commands`, concurrently across hosts and one after another on a
  // host; per command its output, or why it did not run, as the detail a
  // failure of the check gives ("not run: the validation's deadline (900 s)
  // passed first", or that the host could not be reached).
  virtual std::vector<Result<ToolOutput>> RunCommands(const std::vector<HostCommand>& commands) = 0;

  // Adds a result to the report (a check the selection left out is dropped).
  virtual void Add(CheckResult result) = 0;

  // ---- The hosts, the inventory and the time left: for the checks between
  //      selected nodes and of the inventory's services (ib.write_bw,
  //      fabric.ipoib, nfs.*, monitoring.targets).

  // A host that took part in the probe phase.
  struct ProbedHost {
    std::string name;
    bool selected = false;    // chosen by --limit; else a helper (the Slurm controller, the submit host)
    bool reached = false;     // the probe phase read it
    std::string unreachable;  // why not, when not reached
  };
  // Every host that took part in the probe phase: the selected ones in the
  // order --limit chose them, then the helpers. `View` works on each (an
  // unreachable host's has no facts and no outputs).
  virtual std::vector<ProbedHost> ProbedHosts() const = 0;

  // The verdict the node check `check` got on `host` in the node phase,
  // whether or not the selection reports it (a prerequisite that was not
  // selected is judged too); nullopt where it was not judged (the host was
  // unreachable, the check not needed, or it has no node verdict).
  virtual std::optional<CheckOutcome> NodeOutcome(const std::string& check, const std::string& host) const = 0;

  // Whether the selection reports `check` (Add keeps its results): of the
  // checks one run judges together, the first selected one's phase runs it.
  virtual bool Reports(const std::string& check) const = 0;

  // The inventory being validated: hosts' addresses, interfaces and groups,
  // and the variables the roles read (NFS mounts, the monitoring host's).
  virtual const Inventory& inventory() const = 0;
  // The inventory's NFS settings as the roles read them (views/nfs_view.h:
  // per host its mounts, their servers' addresses and versions); why not
  // when they are wrong (deploy and plan say where).
  virtual Result<nlohmann::json> NfsView() const = 0;

  // Whole seconds left before the run's deadline (0: it passed); a phase
  // that runs in rounds starts none that cannot finish.
  virtual int SecondsLeft() const = 0;
  // The detail of a failure whose work the deadline left no time for:
  // "not run: the validation's deadline (900 s) passed first".
  virtual std::string DeadlineText() const = 0;

  // ---- Out of band: the hosts' BMCs (bmc.reachable, bmc.sel).

  // Runs `action` (status, sel) through each host's BMC from the controller
  // with the power engine's own code (power/power_run.h: ipmitool, the
  // password only as its file, hosts in parallel), whether or not the host
  // answers over SSH; one result per host, in the hosts' order.
  // REQUIRES: each host has a bmc.
  virtual std::vector<PowerResult> ThroughBmcs(const std::vector<const Host*>& hosts, PowerAction action) = 0;

  // One line of progress for whoever watches a long run (validate prints it
  // on stderr at the info level): what a measurement is doing now.
  virtual void Progress(const std::string& line) = 0;
};

// The selected nodes a node check's phase can measure (a check without a
// node verdict: the acceptance measurements, gpu.dcgm_diag, gpu.soak), in
// --limit's order, walked the one way for all of them. The node phase has
// already given each selected node the phase does not measure its result
// (node_verdicts.cc): one that did not answer failed ("not checked: X is
// unreachable (why)"), one where a requirement of the check's spec is unmet
// was skipped with its reason; neither is returned, and nothing is added for
// them (one result per node and check). One whose prerequisite did not pass
// is blocked here (`Blocked`: the prerequisite's `why`, else "P did not pass
// on X"). What else the check needs (its tool installed) is the caller's to
// judge. REQUIRES: `check` is registered.
std::vector<std::string> MeasurableNodes(ClusterRun& run, const std::string& check);

}  // namespace clusterctl
