// What every command that talks to hosts (facts, run, and later deploy and
// validate) sets up and tears down: the inventory and --limit selection, the
// state store (writer lock, run record, host records), the recorded host
// keys, the agent builds, and the sudo password when one is asked for.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/remote/remote_runner.h"

namespace clusterctl {

struct RemoteCommandOptions {
  std::string inventory_path;
  std::string limit;
  size_t forks = FanoutOptions{}.forks;
  bool ask_become_pass = false;
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
  StateStore& state() { return *state_; }
  int64_t run_id() const { return run_id_; }

  std::vector<HostResult> Run(const RemoteRunner::HostBody& body);
  // Runs `body` only on `subset` (hosts of this command).
  std::vector<HostResult> RunOn(const std::vector<const Host*>& subset, const RemoteRunner::HostBody& body);
  RemoteRunner& runner() { return *runner_; }
  const Services& services() const { return *services_; }

  // Records accepted host keys, prints notes and the unreachable/failed
  // hosts to stderr, finishes the run record. Returns the exit code: 0 when
  // every host is ok, 1 otherwise.
  // `print_failures` false: the caller has already reported them.
  // `failed_anyway`: record the run as failed even when every host was ok
  // (a validation with failed checks).
  int Finish(const std::vector<HostResult>& results, const nlohmann::json& summary, bool print_failures = true,
             bool failed_anyway = false);

 private:
  RemoteCommand() = default;

  const Services* services_ = nullptr;
  Inventory inventory_;
  std::vector<const Host*> hosts_;
  std::unique_ptr<StateStore> state_;
  int64_t run_id_ = 0;
  std::unique_ptr<RemoteRunner> runner_;
};

// Reads a password from the terminal with echo off (prompt on stderr).
std::optional<std::string> ReadPasswordFromTerminal(const std::string& prompt);

}  // namespace clusterctl
