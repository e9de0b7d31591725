// Running a program on the node: an argument vector, never a shell string.
#pragma once

#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "agent/exec/hangup_watch.h"
#include "agent/exec/stall_watch.h"
#include "common/status.h"

namespace clusterctl::agent {

struct CommandSpec {
  std::vector<std::string> argv;              // argv[0] searched in PATH
  std::map<std::string, std::string> env;     // added to the agent's clean environment
  std::string stdin_data;                     // written to the program's stdin, then closed
  // Then SIGTERM to its process group; `kill_grace` later SIGKILL; then
  // SIGKILL to any process that left the group but holds its outputs.
  std::chrono::milliseconds timeout{60'000};
  std::chrono::milliseconds kill_grace{5'000};
  size_t output_limit = 16u << 20;            // per stream; the rest is dropped and flagged
  std::string working_directory = "/";
  // When it reports the controller gone, the command is stopped the way its
  // time limit stops it (SIGTERM, `kill_grace`, SIGKILL); one already
  // reported is not started.
  HangupWatch hangup;
  // Stopped the same way when it makes no progress for a while (off by default).
  StallWatch stall;
};

struct CommandResult {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  bool stalled = false;          // stopped by its stall watch (not counted as timed out)
  bool controller_gone = false;  // stopped (or not started) because the controller's session closed
  bool truncated = false;
  // false when the program could not be executed: no pipes, no process
  // (fork failed), or exec failed; exit_code is then 127 and stderr_data
  // says why, with the error number's text.
  bool started = true;
  std::string stdout_data;
  std::string stderr_data;
  std::chrono::milliseconds duration{0};
};

// The environment every command starts from: PATH, LANG=C.UTF-8, HOME=/root,
// DEBIAN_FRONTEND=noninteractive; nothing inherited from the SSH session.
std::map<std::string, std::string> BaseEnvironment();

// How a process is created: fork(2) itself, or a test's stand-in that fails
// the way fork does (returns -1 with errno set).
using ForkFunction = pid_t (*)();

CommandResult RunCommand(const CommandSpec& spec, ForkFunction fork_process = ::fork);

}  // namespace clusterctl::agent
