// Running one program on a node through its agent and getting back what it
// printed (the agent's "exec" request: an argument vector, never a shell
// line, so no inventory or fact value is ever interpreted by a shell).
#pragma once

#include <string>
#include <vector>

#include "controller/remote/agent_session.h"
#include "controller/validate/verdicts.h"

namespace clusterctl {

// Runs argv with `input` on stdin, killed after `timeout_s`. A transport
// failure (the node went away) comes back as exit_code -1 with the reason in
// err, started = true, so the check fails naming it rather than skipping.
Task<ToolOutput> ExecOnNode(AgentSession& agent, const std::vector<std::string>& argv, const std::string& input,
                            int timeout_s);

// Whether `path` is an executable file on the node (`test -x`).
Task<bool> IsExecutableOnNode(AgentSession& agent, const std::string& path, int timeout_s);

}  // namespace clusterctl
