// The node checks' commands run for real on the node, by the agent's own
// runner (agent/exec/run_command.h: an argv, a clean environment, the time
// limit's SIGTERM then SIGKILL to the whole process group).
#pragma once

#include "health/node_health.h"

namespace clusterctl::health {

class LocalCommands : public NodeCommands {
 public:
  ToolOutput Run(const Argv& argv, std::chrono::seconds limit) override;
  bool Executable(const std::string& path) override;
};

}  // namespace clusterctl::health
