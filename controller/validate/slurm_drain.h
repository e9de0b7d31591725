// Draining and resuming a node in Slurm for failed checks: the Slurm health
// check on the node (health/, docs/health.md) and validate --drain-failed
// at the acceptance level (docs/validation.md) decide the same way. A failed
// check drains the node with a reason naming the check and its reading; a
// node its owner drained is resumed once its checks pass again; a node
// drained for any other reason (an admin's, slurmctld's, the other owner's)
// is never touched. The reason's prefix says whose drain it is, so the
// health check never resumes a node acceptance drained for being slow.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "controller/validate/check_result.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {

// Whose drains these are: the reason's prefix, and a name for the messages.
struct DrainOwner {
  std::string_view prefix;
  std::string_view name;
};
inline constexpr DrainOwner kHealthDrains{kHealthDrainPrefix, "the health check"};
inline constexpr DrainOwner kAcceptanceDrains{"clusterctl-accept: ", "acceptance"};
constexpr size_t kDrainReasonMax = 120;

// "clusterctl: clock.offset chronyd is not running (+1 more)": the owner's
// prefix, the first failure's check and detail, printable ASCII only, at most kDrainReasonMax bytes.
std::string DrainReason(const DrainOwner& owner, const std::vector<const CheckResult*>& failures);

struct SlurmAction {
  enum class Kind { kNone, kDrain, kResume };
  Kind kind = Kind::kNone;
  std::string reason;  // kDrain: the reason to set
  std::string why;     // what was decided and why, one line (printed)
  bool drained_by_owner = false;  // once done, the node is drained by `owner`
};

// Pure: from the node's state as slurmctld has it and the owner's failures on it.
SlurmAction DecideDrain(const DrainOwner& owner, const SlurmNodeState& state,
                        const std::vector<const CheckResult*>& failures);

// The commands that read and change the node's state (argv, never a shell).
std::vector<std::string> ShowNodeArgv(const std::string& node);
std::vector<std::string> ActionArgv(const SlurmAction& action, const std::string& node);

// The node's state from what ShowNodeArgv printed; why not (the command
// failed, its output unreadable, no such node) as the error.
Result<SlurmNodeState> NodeStateFrom(const std::string& node, const ToolOutput& shown);

}  // namespace clusterctl
