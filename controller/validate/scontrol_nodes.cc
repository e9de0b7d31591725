#include "controller/validate/scontrol_nodes.h"

#include "common/strings.h"

namespace clusterctl {
namespace {

// Why a run gave no output to read: "exit 1: scontrol: unrecognized option '--json'".
std::string RunProblem(const ToolOutput& run) {
  std::string said(Trim(run.err.empty() ? run.out : run.err));
  said = said.substr(0, said.find('\n'));
  return ExitDescription(run) + (said.empty() ? "" : ": " + Printable(said, 160));
}

}  // namespace

const std::vector<std::string>& ScontrolShowNodeJsonArgv() {
  static const std::vector<std::string> argv = {"scontrol", "show", "node", "--json"};
  return argv;
}

const std::vector<std::string>& ScontrolShowNodeTextArgv() {
  static const std::vector<std::string> argv = {"scontrol", "show", "node"};
  return argv;
}

Result<std::vector<SlurmNodeState>> ReadScontrolNodesJson(const ToolOutput& json_run) {
  if (!json_run.Succeeded()) return Status::Unavailable("scontrol show node --json: " + RunProblem(json_run));
  auto parsed = ParseSlurmNodesJson(json_run.out);
  if (!parsed.ok()) return Status::InvalidArgument("scontrol show node --json: " + parsed.status().message());
  std::string from = "scontrol show node --json" + (parsed->release.empty() ? "" : " (Slurm " + parsed->release + ")");
  for (SlurmNodeState& node : parsed->nodes) node.read_from = from;
  return std::move(parsed->nodes);
}

Result<std::vector<SlurmNodeState>> ReadScontrolNodesText(const ToolOutput& text_run, const std::string& json_problem) {
  if (!text_run.Succeeded()) {
    return Status::Unavailable("scontrol show node: " + RunProblem(text_run) + " (and " + json_problem + ")");
  }
  auto nodes = ParseScontrolShowNode(text_run.out);
  if (!nodes.ok()) {
    return Status::InvalidArgument("scontrol show node: " + nodes.status().message() + " (and " + json_problem + ")");
  }
  for (SlurmNodeState& node : *nodes) node.read_from = "scontrol show node, text (" + json_problem + ")";
  return nodes;
}

}  // namespace clusterctl
