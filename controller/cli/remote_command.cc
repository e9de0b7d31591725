#include "controller/cli/remote_command.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "controller/cli/exit_codes.h"
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
  std::optional<Inventory> inventory = LoadInventoryOrReport(options.inventory_path, services, false);
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
    *services.err << "clusterctl: " << selected.status().message() << "\n";
    exit_code = kExitUsage;
    return nullptr;
  }
  command->hosts_ = std::move(selected).value();

  RemoteOptions remote;
  if (const char* env = std::getenv("CLUSTERCTL_SUDO_PASSWORD")) remote.sudo_password = env;
  if (options.ask_become_pass && !remote.sudo_password) {
    remote.sudo_password = ReadPasswordFromTerminal("SUDO password: ");
    if (!remote.sudo_password) {
      *services.err << "clusterctl: --ask-become-pass needs a terminal (or set CLUSTERCTL_SUDO_PASSWORD)\n";
      exit_code = kExitUsage;
      return nullptr;
    }
  }
  auto agents = AgentBinaries::Discover();
  if (!agents.ok()) {
    *services.err << "clusterctl: " << agents.status().message() << "\n";
    exit_code = kExitFailed;
    return nullptr;
  }

  command->state_ = OpenStateForWritingOrReport(StatePathsFor(command->inventory_, global), global, services, exit_code);
  if (!command->state_) return nullptr;
  std::vector<std::pair<std::string, std::string>> names;
  for (const Host& h : command->inventory_.hosts) names.emplace_back(h.name, h.address);
  Status synced = command->state_->SyncInventoryHosts(names);
  auto run = synced.ok() ? command->state_->BeginRun(kind, global.command_line) : Result<int64_t>(synced);
  auto keys = command->state_->LoadHostKeys();
  if (!run.ok() || !keys.ok()) {
    *services.err << "clusterctl: state: " << (run.ok() ? keys.status() : run.status()).message() << "\n";
    exit_code = kExitFailed;
    return nullptr;
  }
  command->run_id_ = *run;
  std::map<std::string, RecordedHostKey> known;
  for (const auto& [name, key] : *keys) known[name] = {key.type, key.sha256};
  FanoutOptions fanout;
  fanout.forks = options.forks;
  command->runner_ = std::make_unique<RemoteRunner>(std::move(known), std::move(agents).value(), remote, fanout);
  return command;
}

std::vector<HostResult> RemoteCommand::Run(const RemoteRunner::HostBody& body) { return runner_->Run(hosts_, body); }

std::vector<HostResult> RemoteCommand::RunOn(const std::vector<const Host*>& subset, const RemoteRunner::HostBody& body) {
  return runner_->Run(subset, body);
}

int RemoteCommand::Finish(const std::vector<HostResult>& results, const nlohmann::json& summary, bool print_failures,
                          bool failed_anyway) {
  std::ostream& err = *services_->err;
  std::vector<std::pair<std::string, StoredHostKey>> keys;
  for (const auto& [name, key] : runner_->AcceptedHostKeys()) keys.push_back({name, {key.type, key.sha256}});
  Status recorded = state_->RecordHostKeys(keys);
  if (!recorded.ok()) err << "clusterctl: recording host keys: " << recorded.message() << "\n";
  for (const std::string& note : runner_->JumpHostNotes()) err << "note: " << note << "\n";

  std::vector<std::string> bad;
  for (const HostResult& r : results) {
    for (const std::string& note : r.notes) err << r.host->name << ": note: " << note << "\n";
    if (r.state != HostResult::State::kOk) {
      bad.push_back(r.host->name);
      state_->RecordEvent(run_id_, r.host->name, "error", ToString(r.state), r.error);
    }
  }
  for (const HostResult& r : results) {
    if (r.state != HostResult::State::kOk && print_failures) {
      err << r.host->name << ": " << ToString(r.state) << ": " << r.error << "\n";
    }
  }
  state_->FinishRun(run_id_, bad.empty() && !failed_anyway ? RunStatus::kOk : RunStatus::kFailed, summary);
  return bad.empty() ? kExitOk : kExitFailed;
}

}  // namespace clusterctl
