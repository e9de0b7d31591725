// gpu.dcgm_diag (acceptance): DCGM's long diagnostic, `dcgmi diag -r
// <validate_dcgm_diag_level> -j` (default 3: the stress, memory and PCIe
// plugins, 30 min or more on 8 GPUs), on every selected node with GPUs at
// once, its JSON judged like gpu.dcgm's table (every test Pass or Skip, at
// least one Pass, not every test beyond Deployment Skip, exit 0; DCGM 3.x and
// 4.x shapes: dcgm_diag.h). A failure
// names each failed test with its GPUs and carries DCGM's warnings.
// The testbed's DCGM is a SIMULATED package with no dcgmi that works: its
// output is never a reading, so the check never passes there.
#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/dcgm_diag.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "gpu.dcgm_diag";

const ProbeSpec kInstalled{.id = "dcgmi installed",
                           .commands = {{"test", "-x", "/usr/bin/dcgmi"}},
                           .timeout_s = 10,
                           .when = [](const NodeReadings& n) { return n.HasGpus(); }};

std::string Level(const NodeView& view) {
  return std::to_string(IntegerVariable(view.vars, "validate_dcgm_diag_level").value_or(3));
}

Argv DiagArgv(const NodeView& view) { return {"/usr/bin/dcgmi", "diag", "-r", Level(view), "-j"}; }

// The verdict over one node's run; a simulated dcgmi (the testbed's) is no reading.
CheckResult JudgeRun(const std::string& node, const std::string& command, const Result<ToolOutput>& out) {
  if (!out.ok()) return Fail(kCheck, kNode, node, out.status().message(), {}, "unknown");
  if (out->Both().find("SIMULATED") != std::string::npos) {
    return Fail(kCheck, kNode, node, "no reading: dcgmi on " + node + " is SIMULATED (the testbed's placeholder)",
                TailLines(out->Both()), "unknown");
  }
  if (out->timed_out) return ToolFailed(kCheck, kNode, node, command.c_str(), *out);
  return JudgeDcgmTests(kCheck, command, node, *out, ParseDcgmDiagJson(out->out));
}

// The nodes to run it on; every other selected node gets its result here.
std::vector<std::string> DiagNodes(ClusterRun& run) {
  std::vector<std::string> nodes;
  for (const std::string& node : MeasurableNodes(run, kCheck)) {
    if (!run.View(node).node.Output(kInstalled.id).Succeeded()) {
      run.Add(Fail(kCheck, kNode, node, "DCGM is not installed on " + node + " (no /usr/bin/dcgmi; the dcgm role installs it)", {}, "unknown"));
    } else {
      nodes.push_back(node);
    }
  }
  return nodes;
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = DiagNodes(run);
  if (nodes.empty()) return;
  std::vector<HostCommand> commands;
  for (const std::string& node : nodes) {
    const NodeView view = run.View(node);
    const int timeout = static_cast<int>(IntegerVariable(view.vars, "validate_dcgm_diag_timeout_s").value_or(7200));
    commands.push_back({.host = node, .argv = DiagArgv(view), .timeout_s = timeout});
  }
  run.Progress(std::string(kCheck) + ": dcgmi diag -r " + commands.front().argv[3] + " on " +
               std::to_string(nodes.size()) + " nodes");
  const std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  for (size_t n = 0; n < nodes.size(); ++n) {
    run.Add(JudgeRun(nodes[n], "dcgmi diag -r " + commands[n].argv[3] + " -j", outputs[n]));
  }
}

const CheckRegistration kGpuDcgmDiag({.name = kCheck,
                                      .scope = kNode,
                                      .summary = "DCGM's long diagnostic (dcgmi diag -r 3 -j) passes on every GPU node",
                                      .rank = 320,
                                      .requirements = {GpusOnPciBus()},
                                      .prerequisites = {DriverLoaded()},
                                      .probes = {&kInstalled},
                                      .cluster_phase = {.run = RunPhase},
                                      .variables = R"yaml(
validate_dcgm_diag_level:
  default: 3
  type: integer
  minimum: 1
  maximum: 4
  description: "acceptance: the run level of gpu.dcgm_diag's dcgmi diag (3: long, 30 min or more; 4: extended, hours)"
validate_dcgm_diag_timeout_s:
  default: 7200
  type: integer
  minimum: 60
  description: "acceptance: how long gpu.dcgm_diag waits for dcgmi diag on a node before it fails (seconds)"
)yaml",
                                      .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
