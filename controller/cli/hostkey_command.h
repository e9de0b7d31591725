// `clusterctl hostkey forget INV HOST...`: removes recorded SSH host keys, for
// nodes that were reinstalled. The next connection records the new key
// (accept-new) or refuses it (strict, unless it is in ~/.ssh/known_hosts).
#pragma once

#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

int RunHostKeyForget(const std::string& inventory_path, const std::vector<std::string>& hosts,
                     const GlobalOptions& global, const Services& services);

// `hostkey` with forget (command_values.h).
void AddHostkeyCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
