#include "controller/cli/hold_command.h"

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

// Runs argv[0] (searched in PATH, no shell) and returns its exit status, or
// 128+signal when it was killed, or 127 when it could not be started.
int SpawnAndWait(const std::vector<std::string>& command, std::ostream& err) {
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) {
    err << "clusterctl: cannot run " << command[0] << ": " << std::strerror(rc) << "\n";
    return 127;
  }
  // The terminal's Ctrl-C reaches the child too; the lock is released after it ends.
  ::signal(SIGINT, SIG_IGN);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::signal(SIGINT, SIG_DFL);
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
    *services.err << "clusterctl: " << run.status().message() << "\n";
    return kExitFailed;
  }
  std::string why = reason.empty() ? "manual maintenance" : reason;
  store->RecordEvent(*run, std::nullopt, "info", "hold", "state held for " + why);
  *services.err << "holding the state of cluster " << inventory->cluster_name << " (" << store->paths().dir
                << ", pid " << ::getpid() << ") for " << why
                << (command.empty() ? "; Ctrl-C releases it" : "") << "\n";

  int result = kExitOk;
  if (command.empty()) {
    WaitForTerminationSignal();
  } else {
    result = SpawnAndWait(command, *services.err);
  }
  store->FinishRun(*run, result == 0 ? RunStatus::kOk : RunStatus::kFailed, {{"exit_code", result}});
  *services.err << "released the state of cluster " << inventory->cluster_name << "\n";
  return result;
}

}  // namespace clusterctl
