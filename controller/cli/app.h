// The command line: every subcommand, option and help text of clusterctl,
// parsed with CLI11, dispatching to the subcommands.
#pragma once

#include <memory>

#include "controller/cli/command_context.h"

namespace CLI {
class App;
}

namespace clusterctl {

struct CommandValues;

// Building the definition runs nothing: the man page and the completions are
// generated from this very object (generate_docs.h), so they cannot drift
// from --help.
class CommandLine {
 public:
  // REQUIRES: `services` outlives this object.
  explicit CommandLine(const Services& services);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Parses argv and runs the chosen command. Returns the process exit code
  // (see exit_codes.h). Call at most once.
  int Run(int argc, char** argv);

  const CLI::App& app() const { return *app_; }

 private:
  std::unique_ptr<CommandValues> values_;
  std::unique_ptr<CLI::App> app_;
};

// Returns the process exit code (see exit_codes.h).
int RunCommandLine(int argc, char** argv, const Services& services);

}  // namespace clusterctl
