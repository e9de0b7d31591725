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
#include "controller/run/command_run.h"

namespace clusterctl {

int RunAdHoc(const RemoteCommandOptions& options, const std::vector<std::string>& argv, int timeout_s,
             uint64_t max_output_bytes,
             const GlobalOptions& global, const Services& services);

// The human form: a header per group (hosts, exit code), then its output as
// TerminalText lines (a node's escape sequences shown, not obeyed).
void PrintOutputGroups(const std::vector<OutputGroup>& groups, std::ostream& out);

// `run` (command_values.h).
void AddRunCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
