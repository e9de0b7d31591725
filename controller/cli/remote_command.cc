#include "controller/cli/remote_command.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "controller/cli/exit_codes.h"
#include "controller/output/terminal_text.h"

namespace clusterctl {

std::optional<std::string> ReadPasswordFromTerminal(const std::string& prompt) {
  int tty = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (tty < 0) return std::nullopt;
  (void)!::write(tty, prompt.data(), prompt.size());
  termios saved{};
  bool restore = ::tcgetattr(tty, &saved) == 0;
  if (restore) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(tty, TCSAFLUSH, &quiet);
  }
  std::string password;
  char c;
  while (::read(tty, &c, 1) == 1 && c != '\n') password += c;
  if (restore) ::tcsetattr(tty, TCSAFLUSH, &saved);
  (void)!::write(tty, "\n", 1);
  ::close(tty);
  return password;
}

void ReportRunProblems(const std::vector<RunProblem>& problems, Diagnostics& diagnostics, Logger& log) {
  using Field = RunProblem::Field;
  static const std::map<Field, const char*> kFlags = {{Field::kRoles, "--roles"},     {Field::kTags, "--tags"},
                                                      {Field::kSkipTags, "--skip-tags"}, {Field::kBatch, "--batch"},
                                                      {Field::kMaxFail, "--max-fail"}};
  for (const RunProblem& problem : problems) {
    if (auto flag = kFlags.find(problem.field); flag != kFlags.end()) {
      diagnostics.Error({flag->second, 0, 0}, problem.message);
    } else if (problem.field == Field::kChecks) {
      log.Error("clusterctl validate: " + problem.message);
    } else if (problem.field == Field::kCommand) {
      log.Error("clusterctl run: " + problem.message);
    } else {
      log.Error("clusterctl: " + problem.message);
    }
  }
}

std::unique_ptr<RemoteCommand> RemoteCommand::Prepare(const RunRequest& request, const RemoteCommandOptions& options,
                                                      const GlobalOptions& global, const Services& services,
                                                      int& exit_code) {
  std::optional<Inventory> inventory = LoadCheckedInventoryOrReport(options.inventory_path, options.extra_vars, services);
  if (!inventory) {
    exit_code = kExitUsage;
    return nullptr;
  }
  return Prepare(request, std::move(*inventory), nullptr, options, global, services, exit_code);
}

std::unique_ptr<RemoteCommand> RemoteCommand::Prepare(const RunRequest& request, Inventory inventory,
                                                      const Catalog* catalog, const RemoteCommandOptions& options,
                                                      const GlobalOptions& global, const Services& services,
                                                      int& exit_code) {
  std::unique_ptr<RemoteCommand> command(new RemoteCommand());
  command->services_ = &services;
  command->inventory_ = std::move(inventory);
  auto prepared = PrepareRun(request, command->inventory_, catalog);
  if (auto* problems = std::get_if<std::vector<RunProblem>>(&prepared)) {
    Diagnostics diagnostics;
    ReportRunProblems(*problems, diagnostics, *services.log);
    LogDiagnostics(diagnostics, *services.log);
    exit_code = kExitUsage;
    return nullptr;
  }
  command->prepared_ = std::get<PreparedRun>(std::move(prepared));

  RunSessionOptions session;
  session.kind = request.kind;
  session.command = global.command_line;
  session.paths = StatePathsFor(command->inventory_, global);
  session.clock = services.clock;
  session.filesystem = services.filesystem;
  session.fanout.forks = options.forks;
  session.remote.log = services.log;  // retried connections, at -v
  if (const char* env = std::getenv("CLUSTERCTL_SUDO_PASSWORD")) session.remote.sudo_password = env;
  if (options.ask_become_pass && !session.remote.sudo_password) {
    session.remote.sudo_password = ReadPasswordFromTerminal("SUDO password: ");
    if (!session.remote.sudo_password) {
      services.log->Error("clusterctl: --ask-become-pass needs a terminal (or set CLUSTERCTL_SUDO_PASSWORD)");
      exit_code = kExitUsage;
      return nullptr;
    }
  }
  auto opened = RunSession::Open(command->inventory_, session);
  if (!opened.ok()) {
    services.log->Error("clusterctl: " + opened.status().message());
    exit_code = opened.status().code() == Status::Code::kBusy ? kExitStateBusy : kExitFailed;
    return nullptr;
  }
  command->session_ = std::move(opened).value();
  if (const auto& stale = command->session_->state().cleared_stale_holder()) {
    services.log->Info("clusterctl: note: the previous holder of the state lock, " + stale->Describe() +
                       ", ended without releasing it; the lock was cleared");
  }
  return command;
}

int RemoteCommand::Report(const CompletedRun& completed, const std::vector<HostResult>& results, bool print_failures) {
  Logger& log = *services_->log;
  for (const std::string& error : completed.state_errors) log.Error("clusterctl: " + error);
  for (const std::string& note : completed.notes) log.Info("note: " + note);
  for (const HostResult& r : results) {
    for (const std::string& note : r.notes) log.Info(r.host->name + ": note: " + TerminalText(note, TextShape::kOneLine));
  }
  for (const HostResult& r : results) {
    if (r.state != HostResult::State::kOk && print_failures) {
      log.Error(r.host->name + ": " + ToString(r.state) + ": " + TerminalText(r.error, TextShape::kOneLine));
    }
  }
  return completed.status == RunStatus::kOk ? kExitOk : kExitFailed;
}

}  // namespace clusterctl
