// `clusterctl deploy` and `clusterctl plan` (= deploy --check --diff): the
// command line's adapter of RunDeployment (controller/engine/deploy_run.h).
// It checks the inventory, the catalog and the flags (exit 2, nothing
// touched), takes the run's state and sessions (RemoteCommand), picks the
// output (live view, plain lines or --json, with messages on stderr), turns
// SIGINT/SIGTERM into a clean stop, and maps the result to an exit code:
// 0 every host ok, 1 a host failed or the run stopped, 2 invalid input,
// 3 the state is held by another run.
#pragma once

#include <string>
#include <vector>

#include "controller/cli/command_values.h"
#include "controller/cli/remote_command.h"

namespace clusterctl {

struct DeployOptions {
  RemoteCommandOptions remote;
  std::vector<std::string> roles;  // --roles
  std::vector<std::string> tags, skip_tags;  // --tags, --skip-tags
  std::vector<std::string> rotate_secrets;  // --rotate-secret
  bool check = false;
  bool diff = false;
  bool verify = false;
  bool strict = false;   // --strict: the inventory's warnings are errors
  std::string batch;     // "N" or "P%"; empty: all at once
  int max_fail_percent = 100;
  std::string colour = "auto";  // --color: auto, always or never
};

int RunDeploy(const DeployOptions& options, const GlobalOptions& global, const Services& services);

// `deploy` and `plan` (command_values.h).
void AddDeployCommands(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
