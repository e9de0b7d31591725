// The command line's side of a run that talks to hosts (facts, run, deploy,
// plan, validate): the inventory and its --limit selection (done once, here),
// the sudo password from the terminal or CLUSTERCTL_SUDO_PASSWORD, and
// turning what the engine's RunSession returns into messages and exit codes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/engine/run_session.h"

namespace clusterctl {

struct RemoteCommandOptions {
  std::string inventory_path;
  std::string limit;
  size_t forks = FanoutOptions{}.forks;
  bool ask_become_pass = false;
  std::vector<std::string> extra_vars;  // -e/--extra-vars: KEY=VALUE or @FILE (deploy, plan, validate)
};

class RemoteCommand {
 public:
  // Loads, selects, locks and prepares; on failure prints why and returns
  // nullptr with `exit_code` set (2 bad input, 3 state busy, 1 other).
  static std::unique_ptr<RemoteCommand> Prepare(const std::string& kind, const RemoteCommandOptions& options,
                                                const GlobalOptions& global, const Services& services,
                                                int& exit_code);
  // The same with the inventory the caller already loaded and checked
  // (deploy, validate), so it is not read twice.
  static std::unique_ptr<RemoteCommand> Prepare(const std::string& kind, Inventory inventory,
                                                const RemoteCommandOptions& options, const GlobalOptions& global,
                                                const Services& services, int& exit_code);

  const Inventory& inventory() const { return inventory_; }
  const std::vector<const Host*>& hosts() const { return hosts_; }
  StateStore& state() { return session_->state(); }
  int64_t run_id() const { return session_->run_id(); }
  RemoteRunner& runner() { return session_->runner(); }

  std::vector<HostResult> Run(const RemoteRunner::HostBody& body);
  // Runs `body` only on `subset` (hosts of this command).
  std::vector<HostResult> RunOn(const std::vector<const Host*>& subset, const RemoteRunner::HostBody& body);
  const Services& services() const { return *services_; }

  // Ends the run (RunSession::Finish), prints notes and the unreachable/
  // failed hosts to stderr. Returns the exit code: 0 when every host is ok,
  // 1 otherwise. `print_failures` false: the caller has already reported
  // them. `status`: how the run ended when not simply by its hosts (a
  // validation with failed checks is kFailed, a stopped deploy
  // kInterrupted).
  int Finish(const std::vector<HostResult>& results, const nlohmann::json& summary, bool print_failures = true,
             std::optional<RunStatus> status = std::nullopt);

 private:
  RemoteCommand() = default;

  const Services* services_ = nullptr;
  Inventory inventory_;
  std::vector<const Host*> hosts_;
  std::unique_ptr<RunSession> session_;
};

// Reads a password from the terminal with echo off (prompt on stderr).
std::optional<std::string> ReadPasswordFromTerminal(const std::string& prompt);

}  // namespace clusterctl
