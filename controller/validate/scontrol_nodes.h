// How validate reads the Slurm controller's view of its nodes: first
// `scontrol show node --json` (Slurm 21.08 on, where it was built with a JSON
// serializer), then, where that gave no reading (an older Slurm's "invalid
// option", a plugin error, a non-zero exit, output that is not the JSON
// expected), the text of `scontrol show node`. Each node read says which form
// it came from; when neither is understood the error says why for both, and
// slurm.node fails on every compute node (docs/validation.md "No reading, no
// pass"). An output the agent cut at its limit is not read (it would miss
// nodes).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "controller/remote/agent_session.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {

const std::vector<std::string>& ScontrolShowNodeJsonArgv();  // scontrol show node --json
const std::vector<std::string>& ScontrolShowNodeTextArgv();  // scontrol show node

// The nodes from the --json run. An error says why that form gave no reading;
// the text form is then run and read with ReadScontrolNodesText.
Result<std::vector<SlurmNodeState>> ReadScontrolNodesJson(const ToolOutput& json_run);

// The nodes from the text run; `json_problem` is ReadScontrolNodesJson's error,
// named in each node's read_from and in the error when the text is not understood either.
Result<std::vector<SlurmNodeState>> ReadScontrolNodesText(const ToolOutput& text_run, const std::string& json_problem);

// Both runs on the node through its agent: --json, then the text form when
// the JSON gave no reading; each command killed after `timeout_s`. What
// validate and the daemon's Slurm watch (daemon/slurm_watch.h) both read.
Task<Result<std::vector<SlurmNodeState>>> ReadScontrolNodes(AgentSession& agent, int timeout_s);

}  // namespace clusterctl
