// `clusterctl serve INV`: the daemon (controller/daemon/daemon.h) in the
// foreground, for systemd (packaging/clusterctl-serve@.service) or a shell.
// SIGTERM and SIGINT stop it (the running job's steps get --stop-grace, its
// intents stay for the next run), SIGHUP re-reads the inventory. With
// --print-token it prints the API token of --scope (admin unless told;
// created at first use) and exits; with --rotate-token SCOPE it replaces
// that scope's token alone, prints the new one and exits (a running daemon
// takes it within seconds).
#pragma once

#include <string>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

struct ServeOptions {
  std::string inventory_path;
  std::string listen = "127.0.0.1:9420";
  bool insecure_listen = false;
  std::string metrics_listen;  // empty: no metrics listener
  int verify_interval_s = 3600;
  int slurm_interval_s = 60;
  std::string verify_batch = "50";
  bool remediate = false;
  bool power_remediate = false;
  int power_remediate_max = 1;  // power cycles in any hour
  int max_fail_percent = 100;
  int stop_grace_s = 30;
  bool print_token = false;
  std::string scope = "admin";  // the token --print-token prints
  std::string rotate_token;     // a scope: rotate its token and exit
};

int RunServe(const ServeOptions& serve, const GlobalOptions& options, const Services& services);

// "127.0.0.1:9420", "[::1]:9420", "0.0.0.0:80" -> address, port; false when malformed.
bool ParseListenAddress(const std::string& text, std::string& address, int& port);

// `serve` (command_values.h).
void AddServeCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
