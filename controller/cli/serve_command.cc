#include "controller/cli/serve_command.h"

#include <CLI/CLI.hpp>
#include <signal.h>

#include <cstdlib>

#include <boost/asio/ip/address.hpp>

#include "common/duration_text.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/option_values.h"
#include "controller/daemon/daemon.h"
#include "controller/daemon/sd_notify.h"
#include "controller/daemon/token.h"

namespace clusterctl {
namespace {

// Blocks the signals the serve loop waits for, in this thread and every
// thread started after it (the HTTP and job threads), so only the loop's
// sigtimedwait sees them.
sigset_t BlockServeSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return set;
}

bool IsLoopback(const std::string& address) {
  boost::system::error_code error;
  auto parsed = boost::asio::ip::make_address(address, error);
  return !error && parsed.is_loopback();
}

// The token of `scope`: rotated when --rotate-token asks, else the one kept
// (created at first use).
Result<std::string> ScopeToken(const ServeOptions& serve, TokenScope scope, const StatePaths& paths,
                               const Services& services) {
  if (Status prepared = PrepareStateDirectories(paths, *services.filesystem); !prepared.ok()) return prepared;
  if (!serve.rotate_token.empty()) return RotateDaemonToken(paths.secrets(), scope);
  auto tokens = LoadOrCreateDaemonTokens(paths.secrets());
  if (!tokens.ok()) return tokens.status();
  return tokens->Of(scope);
}

// --print-token and --rotate-token: the scope's token on stdout, nothing else.
int PrintToken(const ServeOptions& serve, const StatePaths& paths, const Services& services) {
  const std::string& named = serve.rotate_token.empty() ? serve.scope : serve.rotate_token;
  const std::optional<TokenScope> scope = ParseTokenScope(named);
  if (!scope) {
    services.log->Error("clusterctl serve: token scope '" + named + "': expected metrics, read or admin");
    return kExitUsage;
  }
  const Result<std::string> token = ScopeToken(serve, *scope, paths, services);
  if (!token.ok()) {
    services.log->Error("clusterctl serve: " + token.status().message());
    return kExitFailed;
  }
  *services.out << *token << "\n";
  return kExitOk;
}

// --metrics-listen: any address, plain HTTP. What crosses the network there
// is the metrics token and the metrics, which only read each other.
bool MetricsListenerOptions(const ServeOptions& serve, DaemonOptions& daemon, const Services& services) {
  if (serve.metrics_listen.empty()) return true;
  if (ParseListenAddress(serve.metrics_listen, daemon.metrics_address, daemon.metrics_port)) return true;
  services.log->Error("clusterctl serve: --metrics-listen " + serve.metrics_listen +
                      ": expected ADDRESS:PORT (e.g. 10.0.0.1:9421)");
  return false;
}

}  // namespace

bool ParseListenAddress(const std::string& text, std::string& address, int& port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 >= text.size() || text.size() - colon > 6) return false;
  address = text.substr(0, colon);
  if (address.size() >= 2 && address.front() == '[' && address.back() == ']') address = address.substr(1, address.size() - 2);
  port = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    port = port * 10 + (c - '0');
  }
  boost::system::error_code error;
  boost::asio::ip::make_address(address, error);
  return !error && port > 0 && port < 65536;
}

int RunServe(const ServeOptions& serve, const GlobalOptions& options, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(serve.inventory_path, services, true);
  if (!inventory) return kExitUsage;
  const StatePaths paths = StatePathsFor(*inventory, options);
  if (serve.print_token || !serve.rotate_token.empty()) return PrintToken(serve, paths, services);

  DaemonOptions daemon;
  if (!ParseListenAddress(serve.listen, daemon.address, daemon.port)) {
    services.log->Error("clusterctl serve: --listen " + serve.listen + ": expected ADDRESS:PORT (e.g. 127.0.0.1:9420)");
    return kExitUsage;
  }
  if (!IsLoopback(daemon.address) && !serve.insecure_listen) {
    services.log->Error("clusterctl serve: --listen " + serve.listen +
                        " is reachable from other machines and the API is plain HTTP (its token would cross the "
                        "network in clear); listen on loopback behind a TLS proxy, or pass --insecure-listen on a "
                        "network you trust (for Prometheus on another host, --metrics-listen serves /metrics alone)");
    return kExitUsage;
  }
  if (!MetricsListenerOptions(serve, daemon, services)) return kExitUsage;
  daemon.inventory_path = serve.inventory_path;
  daemon.verify_interval = std::chrono::seconds(serve.verify_interval_s);
  daemon.slurm_interval = std::chrono::seconds(serve.slurm_interval_s);
  daemon.verify_batch = serve.verify_batch;
  daemon.remediate = serve.remediate;
  daemon.power.enabled = serve.power_remediate;
  daemon.power.max_per_hour = serve.power_remediate_max;
  daemon.max_fail_percent = serve.max_fail_percent;
  daemon.paths = paths;
  daemon.command_line = options.command_line;
  if (const char* password = std::getenv("CLUSTERCTL_SUDO_PASSWORD")) daemon.remote.sudo_password = password;

  const sigset_t signals = BlockServeSignals();
  auto created = Daemon::Create(daemon, *services.clock, *services.filesystem, *services.log);
  if (!created.ok()) {
    services.log->Error("clusterctl serve: " + created.status().message());
    return created.status().code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailed;
  }
  Daemon& running = **created;
  running.Start();
  NotifySystemd("READY=1\nSTATUS=serving " + std::to_string(running.host_count()) + " hosts");
  while (true) {
    const timespec tick{0, 500'000'000};
    const int signal = sigtimedwait(&signals, nullptr, &tick);
    if (signal == SIGTERM || signal == SIGINT) break;
    if (signal == SIGHUP) running.ReloadInventory();
    running.Tick();
  }
  NotifySystemd("STOPPING=1");
  running.Shutdown(std::chrono::seconds(serve.stop_grace_s));
  services.log->Info("clusterctl serve: stopped");
  return kExitOk;
}

void AddServeCommand(CLI::App& app, CommandValues& v) {
  ServeOptions& o = v.Keep<ServeOptions>();
  CLI::App* serve = app.add_subcommand("serve", "the daemon: HTTP API, metrics, drift checks and a status page");
  AddInventoryArgument(serve, v, o.inventory_path);
  serve->add_option("--listen", o.listen, "ADDRESS:PORT to serve on")->capture_default_str();
  serve->add_flag("--insecure-listen", o.insecure_listen,
                  "allow a non-loopback --listen over plain HTTP (the token crosses the network in clear)");
  serve->add_option("--verify-interval", o.verify_interval_s, "time between drift checks (90, 60s, 5m, 1h; up to 7d)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(1, 7 * 86400))
      ->default_str(FormatDurationSeconds(o.verify_interval_s));
  serve->add_option("--slurm-interval", o.slurm_interval_s,
                    "time between readings of Slurm's nodes on the controller (10s to 1h)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(10, 3600))
      ->default_str(FormatDurationSeconds(o.slurm_interval_s));
  serve->add_option("--verify-batch", o.verify_batch, "hosts checked at a time (N or P%)")->capture_default_str();
  serve->add_flag("--remediate", o.remediate,
                  "converge drifted hosts, and deploy inventory changes, without being asked");
  serve->add_flag("--power-remediate", o.power_remediate,
                  "power-cycle through its BMC a node down in Slurm, silent over SSH and on at its BMC");
  serve->add_option("--power-remediate-max", o.power_remediate_max, "--power-remediate's power cycles in any hour")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  serve->add_option("--max-fail", o.max_fail_percent, "remediation stops starting hosts once P% failed")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  serve->add_option("--stop-grace", o.stop_grace_s, "time the running job's steps get on SIGTERM (30, 30s, 5m; up to 1h)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(0, 3600))
      ->default_str(FormatDurationSeconds(o.stop_grace_s));
  serve->add_option("--metrics-listen", o.metrics_listen,
                    "ADDRESS:PORT of a second, plain-HTTP listener serving only /metrics (to the metrics token) "
                    "and /healthz: for Prometheus on another host");
  serve->add_flag("--print-token", o.print_token, "print the API token of --scope (created at first use) and exit");
  serve->add_option("--scope", o.scope, "the token --print-token prints: metrics, read or admin")
      ->check(CLI::IsMember({"metrics", "read", "admin"}))
      ->capture_default_str();
  serve->add_option("--rotate-token", o.rotate_token,
                    "replace the token of SCOPE (metrics, read or admin) alone, print the new one and exit")
      ->type_name("SCOPE")
      ->check(CLI::IsMember({"metrics", "read", "admin"}));
  AddStateOption(serve, v);
  serve->callback([&v, &o] { v.exit_code = RunServe(o, v.options, v.services); });
}

}  // namespace clusterctl
