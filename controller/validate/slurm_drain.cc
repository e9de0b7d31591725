#include "controller/validate/slurm_drain.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace clusterctl {
namespace {

bool Drained(const SlurmNodeState& state) {
  std::string upper = state.state;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper.find("DRAIN") != std::string::npos;
}

}  // namespace

std::string DrainReason(const DrainOwner& owner, const std::vector<const CheckResult*>& failures) {
  if (failures.empty()) return "";
  const CheckResult& first = *failures.front();
  std::string more = failures.size() > 1 ? " (+" + std::to_string(failures.size() - 1) + " more)" : "";
  std::string text = first.check + " " + first.detail;
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  const size_t room = kDrainReasonMax - owner.prefix.size() - more.size();
  if (text.size() > room) text = text.substr(0, room - 3) + "...";
  return std::string(owner.prefix) + text + more;
}

SlurmAction DecideDrain(const DrainOwner& owner, const SlurmNodeState& state,
                        const std::vector<const CheckResult*>& failures) {
  const std::string name(owner.name);
  const bool drained = Drained(state), ours = state.reason.rfind(owner.prefix, 0) == 0;
  SlurmAction action;
  if (failures.empty()) {
    if (drained && ours) {
      action.kind = SlurmAction::Kind::kResume;
      action.why = "every check passes: resuming the node " + name + " drained";
    } else {
      action.why = drained ? "every check passes; drained for another reason (" + state.reason + "): left alone"
                           : "every check passes";
    }
    return action;
  }
  const std::string reason = DrainReason(owner, failures);
  if (drained && !ours) {
    action.why = "failed, already drained for another reason (" + state.reason + "): left alone";
  } else if (drained && state.reason.rfind(reason, 0) == 0) {  // scontrol appends " [user@time]"
    action.why = "failed, already drained by " + name + " for it";
    action.drained_by_owner = true;
  } else {
    action.kind = SlurmAction::Kind::kDrain;
    action.reason = reason;
    action.why = "failed: draining";
    action.drained_by_owner = true;
  }
  return action;
}

std::vector<std::string> ShowNodeArgv(const std::string& node) { return {"scontrol", "show", "node", node}; }

std::vector<std::string> ActionArgv(const SlurmAction& action, const std::string& node) {
  switch (action.kind) {
    case SlurmAction::Kind::kDrain:
      return {"scontrol", "update", "nodename=" + node, "state=drain", "reason=" + action.reason};
    case SlurmAction::Kind::kResume:
      return {"scontrol", "update", "nodename=" + node, "state=resume"};
    case SlurmAction::Kind::kNone:
      break;
  }
  return {};
}

Result<SlurmNodeState> NodeStateFrom(const std::string& node, const ToolOutput& shown) {
  if (!shown.Succeeded()) {
    return Status::Unavailable("scontrol show node " + node + ": " + ExitDescription(shown) + ": " +
                               Printable(FirstCause(shown.Both()), 200));
  }
  auto nodes = ParseScontrolShowNode(shown.out);
  if (!nodes.ok()) return nodes.status();
  for (SlurmNodeState& state : *nodes) {
    if (state.name == node) return state;
  }
  return Status::NotFound("scontrol show node " + node + " listed no such node");
}

}  // namespace clusterctl
