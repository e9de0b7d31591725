#include "controller/validate/scontrol_nodes.h"

#include "common/strings.h"
#include "controller/validate/remote_exec.h"

namespace clusterctl {
namespace {

// Why a run gave no output to read: "exit 1: scontrol: unrecognized option '--json'".
std::string RunProblem(const ToolOutput& run) {
  std::string said(Trim(run.err.empty() ? run.out : run.err));
  said = said.substr(0, said.find('\n'));
  return ExitDescription(run) + (said.empty() ? "" : ": " + Printable(said, 160));
}

const std::string kCut = "the output was cut at the agent's limit (16 MiB): not read";

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
  if (json_run.truncated) return Status::InvalidArgument("scontrol show node --json: " + kCut);
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
  if (text_run.truncated) return Status::InvalidArgument("scontrol show node: " + kCut + " (and " + json_problem + ")");
  auto nodes = ParseScontrolShowNode(text_run.out);
  if (!nodes.ok()) {
    return Status::InvalidArgument("scontrol show node: " + nodes.status().message() + " (and " + json_problem + ")");
  }
  for (SlurmNodeState& node : *nodes) node.read_from = "scontrol show node, text (" + json_problem + ")";
  return nodes;
}

Task<Result<std::vector<SlurmNodeState>>> ReadScontrolNodes(AgentSession& agent, int timeout_s) {
  const std::string none;
  const std::vector<std::string> json_argv = ScontrolShowNodeJsonArgv(), text_argv = ScontrolShowNodeTextArgv();
  ToolOutput json_run = co_await ExecOnNode(agent, json_argv, none, timeout_s);
  Result<std::vector<SlurmNodeState>> read = ReadScontrolNodesJson(json_run);
  if (read.ok()) co_return read;
  const std::string json_problem = read.status().message();
  ToolOutput text_run = co_await ExecOnNode(agent, text_argv, none, timeout_s);
  co_return ReadScontrolNodesText(text_run, json_problem);
}

}  // namespace clusterctl
