// What a health run does to the node in Slurm (docs/health.md): a failed
// check drains it with a reason that names the check and its reading; a
// node the health check drained is resumed once every check passes again;
// a node drained for any other reason (an admin's, slurmctld's) is never
// touched. The reason's prefix is how the health check knows its own drains.
#pragma once

#include <string>
#include <vector>

#include "controller/validate/slurm_output.h"
#include "health/node_health.h"

namespace clusterctl::health {

inline constexpr std::string_view kReasonPrefix = kHealthDrainPrefix;  // controller/validate/slurm_output.h
constexpr size_t kReasonMax = 120;

// "clusterctl: clock.offset chronyd is not running (+1 more)": the first
// failure's check and detail, printable ASCII only, at most kReasonMax bytes.
std::string DrainReason(const std::vector<const CheckResult*>& failures);

struct SlurmAction {
  enum class Kind { kNone, kDrain, kResume };
  Kind kind = Kind::kNone;
  std::string reason;  // kDrain: the reason to set
  std::string why;     // what was decided and why, one line (printed)
  bool drained_by_health = false;  // once done, the node is drained by the health check
};

// Pure: from the node's state as slurmctld has it and this run's results.
SlurmAction Decide(const SlurmNodeState& state, const NodeHealth& health);

// The commands that read and change the node's state (argv, never a shell).
std::vector<std::string> ShowNodeArgv(const std::string& node);
std::vector<std::string> ActionArgv(const SlurmAction& action, const std::string& node);

}  // namespace clusterctl::health
