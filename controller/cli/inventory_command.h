// `clusterctl inventory check|show|import`, and the inventory's names for the
// shell completions.
#pragma once

#include <string>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

int RunInventoryCheck(const std::string& inventory_path, bool json, bool strict, const Services& services);
int RunInventoryShow(const std::string& inventory_path, bool json, const Services& services);
// Writes to `output_path`, or stdout when empty. Refuses to overwrite an
// existing file unless `force`.
int RunInventoryImport(const std::string& ini_path, const std::string& cluster_name, const std::string& output_path,
                       bool force, const Services& services);
// `clusterctl __complete-names [--kind K] INVENTORY`: the host and group
// names (and "all"), or with --kind tags, roles or checks those words, one a
// line, for the shell completions. Prints nothing and returns 0
// on any problem: a completion must never show an error.
int RunCompleteNames(const std::string& inventory_path, const std::string& kind, const Services& services);

// `inventory` with check, show and import (command_values.h).
void AddInventoryCommand(CLI::App& app, CommandValues& values);
// `__complete-names`, hidden: what the completion scripts call.
void AddCompleteNamesCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
