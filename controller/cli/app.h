// The command line: parses argv with CLI11 and dispatches to the subcommands.
#pragma once

#include "controller/cli/command_context.h"

namespace clusterctl {

// Returns the process exit code (see exit_codes.h).
int RunCommandLine(int argc, char** argv, const Services& services);

}  // namespace clusterctl
