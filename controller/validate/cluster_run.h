// What a cluster check's phase (check_spec.h, `ClusterPhase`) reads and does:
// the nodes it may use, what the probe phase read on each, commands run on
// hosts, and the results it adds. The validation run implements it
// (validator.h); a check's unit test fakes it (checks/spec_test_util.h). No
// SSH or state here: a phase reaches hosts only through `RunCommands`.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "controller/validate/check_result.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/tool_output.h"

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

  // The host jobs are submitted from: the first login node, else the controller.
  virtual const std::string& SubmitHost() const = 0;

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
};

}  // namespace clusterctl
