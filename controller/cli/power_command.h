// `clusterctl power status|on|off|cycle|reset|sel INV NODES`: out-of-band
// power control and the event log of each node's BMC, through ipmitool on
// the controller (controller/power/). One line per host (or --json); exit 0
// when every host succeeded, 1 when any failed, 2 on bad input.
#pragma once

#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"
#include "controller/power/power_run.h"

namespace clusterctl {

struct PowerOptions {
  std::string inventory_path;
  std::vector<std::string> nodes;  // host selections (host_selection.h), joined by commas
  size_t forks = 32;
  bool force = false;  // off/cycle/reset a node Slurm runs jobs on
};

int RunPowerCommand(PowerAction action, const PowerOptions& options, ProcessRunner& runner,
                    const GlobalOptions& global, const Services& services);

void AddPowerCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
