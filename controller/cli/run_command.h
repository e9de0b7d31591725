// `clusterctl run INV [--limit P] [--timeout S] -- CMD ARG...`: runs a command
// (an argument vector, no shell) as root on every selected host in parallel,
// and prints the outputs grouped so identical ones collapse into one block
// with the hosts in range notation (like clush -b / dshbak -c).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "controller/cli/command_values.h"
#include "controller/cli/remote_command.h"

namespace clusterctl {

int RunAdHoc(const RemoteCommandOptions& options, const std::vector<std::string>& argv, int timeout_s,
             uint64_t max_output_bytes,
             const GlobalOptions& global, const Services& services);

struct OutputGroup {
  std::vector<std::string> hosts;
  std::string output;  // stdout then stderr
  int exit_code = 0;
};

// Groups hosts by identical (output, exit code); largest groups first.
std::vector<OutputGroup> GroupOutputs(const std::vector<std::pair<std::string, std::pair<std::string, int>>>& outputs);

// The human form: a header per group (hosts, exit code), then its output as
// TerminalText lines (a node's escape sequences shown, not obeyed).
void PrintOutputGroups(const std::vector<OutputGroup>& groups, std::ostream& out);

// `run` (command_values.h).
void AddRunCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
