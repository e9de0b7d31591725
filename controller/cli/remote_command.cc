#include "controller/cli/remote_command.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>

#include "controller/cli/exit_codes.h"
#include "controller/output/terminal_text.h"
#include "inventory/host_selection.h"

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

std::unique_ptr<RemoteCommand> RemoteCommand::Prepare(const std::string& kind, const RemoteCommandOptions& options,
                                                      const GlobalOptions& global, const Services& services,
                                                      int& exit_code) {
  std::optional<Inventory> inventory = LoadCheckedInventoryOrReport(options.inventory_path, options.extra_vars, services);
  if (!inventory) {
    exit_code = kExitUsage;
    return nullptr;
  }
  return Prepare(kind, std::move(*inventory), options, global, services, exit_code);
}

std::unique_ptr<RemoteCommand> RemoteCommand::Prepare(const std::string& kind, Inventory inventory,
                                                      const RemoteCommandOptions& options, const GlobalOptions& global,
                                                      const Services& services, int& exit_code) {
  std::unique_ptr<RemoteCommand> command(new RemoteCommand());
  command->services_ = &services;
  command->inventory_ = std::move(inventory);
  auto selected = SelectHosts(command->inventory_, options.limit);
  if (!selected.ok()) {
    services.log->Error("clusterctl: " + selected.status().message());
    exit_code = kExitUsage;
    return nullptr;
  }
  command->hosts_ = std::move(selected).value();

  RunSessionOptions session;
  session.kind = kind;
  session.command = global.command_line;
  session.paths = StatePathsFor(command->inventory_, global);
  session.clock = services.clock;
  session.filesystem = services.filesystem;
  session.fanout.forks = options.forks;
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
  if (const auto& stale = command->state().cleared_stale_holder()) {
    services.log->Info("clusterctl: note: the previous holder of the state lock, " + stale->Describe() +
                       ", ended without releasing it; the lock was cleared");
  }
  return command;
}

std::vector<HostResult> RemoteCommand::Run(const RemoteRunner::HostBody& body) { return runner().Run(hosts_, body); }

std::vector<HostResult> RemoteCommand::RunOn(const std::vector<const Host*>& subset, const RemoteRunner::HostBody& body) {
  return runner().Run(subset, body);
}

int RemoteCommand::Finish(const std::vector<HostResult>& results, const nlohmann::json& summary, bool print_failures,
                          std::optional<RunStatus> status) {
  Logger& log = *services_->log;
  bool all_ok = true;
  for (const HostResult& r : results) all_ok = all_ok && r.state == HostResult::State::kOk;
  RunSession::Ending ending = session_->Finish(results, status.value_or(all_ok ? RunStatus::kOk : RunStatus::kFailed), summary);
  if (!ending.recorded.ok()) log.Error("clusterctl: recording the run: " + ending.recorded.message());
  for (const std::string& note : ending.notes) log.Info("note: " + note);
  for (const HostResult& r : results) {
    for (const std::string& note : r.notes) log.Info(r.host->name + ": note: " + TerminalText(note, TextShape::kOneLine));
  }
  for (const HostResult& r : results) {
    if (r.state != HostResult::State::kOk && print_failures) {
      log.Error(r.host->name + ": " + ToString(r.state) + ": " + TerminalText(r.error, TextShape::kOneLine));
    }
  }
  return all_ok ? kExitOk : kExitFailed;
}

}  // namespace clusterctl
