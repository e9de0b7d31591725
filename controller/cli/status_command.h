// `clusterctl status INV [--json]`: every host of the inventory and every host
// the state knows, with its deployment state. Reads only; creates nothing.
#pragma once

#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"
#include "controller/state/host_status.h"
#include "controller/state/state_store.h"
#include "inventory/model.h"

namespace clusterctl {

int RunStatus(const std::string& inventory_path, const GlobalOptions& options, const Services& services);

// `status` (command_values.h).
void AddStatusCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
