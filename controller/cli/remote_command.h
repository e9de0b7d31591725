// The command line's side of a run that talks to hosts (facts, run, deploy,
// plan, validate): the inventory, its request prepared (run/run_request.h:
// the --limit selection and the flags, checked once), the sudo password from
// the terminal or CLUSTERCTL_SUDO_PASSWORD, and turning problems and the
// completed run (run/run_pipeline.h) into messages and exit codes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controller/cli/command_context.h"
#include "controller/run/run_pipeline.h"
#include "controller/run/run_request.h"
#include "controller/run/run_session.h"

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
  // Loads the inventory, prepares `request` against it (PrepareRun), locks
  // the state and opens the run; on failure prints why and returns nullptr
  // with `exit_code` set (2 bad input, 3 state busy, 1 other).
  static std::unique_ptr<RemoteCommand> Prepare(const RunRequest& request, const RemoteCommandOptions& options,
                                                const GlobalOptions& global, const Services& services,
                                                int& exit_code);
  // The same with the inventory (and catalog: deploy and plan) the caller
  // already loaded and checked, so it is not read twice.
  static std::unique_ptr<RemoteCommand> Prepare(const RunRequest& request, Inventory inventory, const Catalog* catalog,
                                                const RemoteCommandOptions& options, const GlobalOptions& global,
                                                const Services& services, int& exit_code);

  const Inventory& inventory() const { return inventory_; }
  const PreparedRun& run() const { return prepared_; }
  const std::vector<const Host*>& hosts() const { return prepared_.hosts; }
  RunSession& session() { return *session_; }
  SessionFactory& sessions() { return session_->sessions(); }
  int64_t run_id() const { return session_->run_id(); }
  const Services& services() const { return *services_; }

  // Prints what the completed run's record says to stderr: problems writing
  // the state, notes, the hosts' notes, and (with `print_failures`; false:
  // the caller has already reported them) the unreachable and failed hosts.
  // Returns the exit code: 0 when the run ended ok, 1 otherwise.
  int Report(const CompletedRun& completed, const std::vector<HostResult>& results = {}, bool print_failures = true);

 private:
  RemoteCommand() = default;

  const Services* services_ = nullptr;
  Inventory inventory_;
  PreparedRun prepared_;
  std::unique_ptr<RunSession> session_;
};

// The command line's words for problems of a request: a flag's problem
// (--roles, --tags, --skip-tags, --batch, --max-fail) goes to `diagnostics`,
// to be printed with the inventory's; the others are printed at once.
void ReportRunProblems(const std::vector<RunProblem>& problems, Diagnostics& diagnostics, Logger& log);

// Reads a password from the terminal with echo off (prompt on stderr).
std::optional<std::string> ReadPasswordFromTerminal(const std::string& prompt);

}  // namespace clusterctl
