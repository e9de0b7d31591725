#include "controller/cli/hold_command.h"

#include <CLI/CLI.hpp>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "controller/cli/exit_codes.h"

extern char** environ;

namespace clusterctl {
namespace {

volatile sig_atomic_t g_held_child = 0;

// SIGTERM/SIGHUP/SIGINT while a held command runs go to the command; the
// lock is released once it has ended.
void ForwardToChild(int signal_number) {
  if (g_held_child > 0) ::kill(static_cast<pid_t>(g_held_child), signal_number);
}

// Runs argv[0] (searched in PATH, no shell) and returns its exit status, or
// 128+signal when it was killed, or 127 when it could not be started.
int SpawnAndWait(const std::vector<std::string>& command, Logger& log) {
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  // clusterctl ignores SIGPIPE (main.cc); the held command gets the default back.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  int rc = ::posix_spawnp(&pid, argv[0], nullptr, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    log.Error("clusterctl: cannot run " + command[0] + ": " + std::strerror(rc));
    return 127;
  }
  g_held_child = pid;
  struct sigaction forward {};
  forward.sa_handler = ForwardToChild;
  sigemptyset(&forward.sa_mask);
  struct sigaction previous[3];
  const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i) ::sigaction(signals[i], &forward, &previous[i]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  for (int i = 0; i < 3; ++i) ::sigaction(signals[i], &previous[i], nullptr);
  g_held_child = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitFailed;
}

void WaitForTerminationSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  int received = 0;
  ::sigwait(&set, &received);
}

}  // namespace

int RunHold(const std::string& inventory_path, const std::vector<std::string>& command, const std::string& reason,
            const GlobalOptions& options, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(inventory_path, services, false);
  if (!inventory) return kExitUsage;
  int exit_code = kExitOk;
  std::unique_ptr<StateStore> store =
      OpenStateForWritingOrReport(StatePathsFor(*inventory, options), options, services, exit_code);
  if (!store) return exit_code;

  auto run = store->BeginRun("hold", options.command_line);
  if (!run.ok()) {
    services.log->Error("clusterctl: " + run.status().message());
    return kExitFailed;
  }
  std::string why = reason.empty() ? "manual maintenance" : reason;
  store->RecordEvent(*run, std::nullopt, "info", "hold", "state held for " + why);
  services.log->Info("holding the state of cluster " + inventory->cluster_name + " (" + store->paths().dir +
                     ", pid " + std::to_string(::getpid()) + ") for " + why +
                     (command.empty() ? "; Ctrl-C releases it" : ""));

  int result = kExitOk;
  if (command.empty()) {
    WaitForTerminationSignal();
  } else {
    result = SpawnAndWait(command, *services.log);
  }
  store->FinishRun(*run, result == 0 ? RunStatus::kOk : RunStatus::kFailed, {{"exit_code", result}});
  services.log->Info("released the state of cluster " + inventory->cluster_name);
  return result;
}

void AddHoldCommand(CLI::App& app, CommandValues& v) {
  struct HoldValues {
    std::string inventory_path;
    std::vector<std::string> command;
    std::string reason;
  };
  HoldValues& o = v.Keep<HoldValues>();
  CLI::App* hold = app.add_subcommand("hold", "hold the state lock for manual maintenance (blocks deploys)");
  AddInventoryArgument(hold, v, o.inventory_path, &o.command);
  hold->add_option("COMMAND", o.command, "command to run while holding (after --); none: until Ctrl-C");
  hold->add_option("--reason", o.reason, "recorded in the state's event log (default: none)");
  AddStateOption(hold, v);
  v.take_words_after_dashes.insert(hold);
  hold->callback([&v, &o] {
    o.command.insert(o.command.end(), v.after_dashes.begin(), v.after_dashes.end());
    v.exit_code = RunHold(o.inventory_path, o.command, o.reason, v.options, v.services);
  });
}

}  // namespace clusterctl
