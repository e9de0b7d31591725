#include "health/node_commands.h"

#include <unistd.h>

#include "agent/exec/run_command.h"

namespace clusterctl::health {

ToolOutput LocalCommands::Run(const Argv& argv, std::chrono::seconds limit) {
  agent::CommandSpec spec;
  spec.argv = argv;
  spec.timeout = limit;
  spec.kill_grace = std::chrono::seconds(2);
  spec.output_limit = 4u << 20;
  agent::CommandResult result = agent::RunCommand(spec);
  ToolOutput output;
  output.started = result.started;
  output.exit_code = result.exit_code;
  output.signal = result.signal;
  output.timed_out = result.timed_out;
  output.truncated = result.truncated;
  output.out = std::move(result.stdout_data);
  output.err = std::move(result.stderr_data);
  return output;
}

bool LocalCommands::Executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace clusterctl::health
