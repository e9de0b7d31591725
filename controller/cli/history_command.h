// `clusterctl history INV [--run ID] [--host H] [--json]`: past runs from the
// state store; one run's steps and events; or one host's recent steps.
#pragma once

#include <string>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

struct HistoryOptions {
  std::string inventory_path;
  int64_t run_id = 0;  // 0: list runs
  std::string host;
  int limit = 20;
};

int RunHistory(const HistoryOptions& options, const GlobalOptions& global, const Services& services);

// `history` (command_values.h).
void AddHistoryCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
