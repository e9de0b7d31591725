// Judging validate's node checks on the node itself (clusterctl-health):
// the same specs, probes, parsers, thresholds and verdicts as `validate`
// (controller/validate/check_spec.h), with the node's own facts and no
// controller's view (NodeView::slurm is null).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/validate/check_spec.h"
#include "health/health_config.h"

namespace clusterctl::health {

// What the checks read on the node: commands with a time limit, and
// whether a file is executable. The real one runs them with the agent's
// RunCommand (node_commands.h); unit tests answer from captured outputs.
class NodeCommands {
 public:
  virtual ~NodeCommands() = default;
  virtual ToolOutput Run(const Argv& argv, std::chrono::seconds limit) = 0;
  virtual bool Executable(const std::string& path) = 0;
};

struct NodeHealth {
  std::vector<CheckResult> results;  // the configured checks, in report order
  // The failed ones; a check that could not be read (no reading) is failed too.
  std::vector<const CheckResult*> Failures() const;
};

// Slurm kills a health program that runs too long: every probe together
// gets `budget` (each at most its own time limit; a settle step at most 10 s).
constexpr std::chrono::seconds kProbeBudget{40};

// Reads and judges the configured checks (and the prerequisites they need)
// on this node. `facts`: the agent's facts, gathered now.
NodeHealth JudgeNode(const HealthConfig& config, nlohmann::json facts, NodeCommands& commands,
                     std::chrono::seconds budget = kProbeBudget);

}  // namespace clusterctl::health
