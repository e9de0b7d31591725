// `clusterctl hold INV [--reason TEXT] [-- COMMAND ARG...]`: holds the state's
// writer lock for manual maintenance, so no deploy or validate can write the
// state (or act on the nodes) meanwhile. With a command, holds it while the
// command runs and exits with the command's status; without one, holds it
// until interrupted (Ctrl-C, SIGTERM, SIGHUP).
#pragma once

#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

int RunHold(const std::string& inventory_path, const std::vector<std::string>& command, const std::string& reason,
            const GlobalOptions& options, const Services& services);

// `hold` (command_values.h).
void AddHoldCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
