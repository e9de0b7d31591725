// What the subcommands' definitions share while the command line is built
// and parsed. Each subcommand defines itself in its own file with an
// Add...Command(CLI::App& app, CommandValues& values) (declared in its
// *_command.h): its options, bound to values it keeps here, and the callback
// that runs it and sets exit_code. app.cc adds them in the order --help, the
// man page and the completions show them.
#pragma once

#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/log.h"
#include "controller/cli/command_context.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/inventory_argument.h"

namespace CLI {
class App;
}

namespace clusterctl {

struct RemoteCommandOptions;

struct CommandValues {
  explicit CommandValues(const Services& s);

  Services services;
  std::unique_ptr<Logger> own_log;
  int exit_code = kExitOk;
  GlobalOptions options;
  bool verbose = false, quiet = false;  // -v, -q
  std::string log_level;                // --log-level

  // A value the options of one command bind to, alive as long as the command line.
  template <typename T>
  T& Keep() {
    auto value = std::make_shared<T>();
    kept_.push_back(value);
    return *value;
  }

  // Each command's INVENTORY / -i / CLUSTERCTL_INVENTORY, resolved into its
  // target path once parsing is complete (ResolveInventories).
  struct InventorySource {
    CLI::App* command;
    InventoryArgument argument;
    std::string* target;
    bool optional = false;  // none given anywhere: the command runs without one (roles)
  };
  std::deque<InventorySource> inventory_sources;

  // Commands whose words after `--` are their COMMAND (run, hold): those
  // words never fill INVENTORY, which -i or the environment may have given.
  std::set<const CLI::App*> take_words_after_dashes;
  std::vector<std::string> after_dashes;

 private:
  std::vector<std::shared_ptr<void>> kept_;
};

// The positional INVENTORY and -i/--inventory, resolved with the environment
// before the command's callback runs (ResolveInventories). `rest`: see
// InventoryArgument. `optional`: see InventorySource.
void AddInventoryArgument(CLI::App* command, CommandValues& v, std::string& target,
                          std::vector<std::string>* rest = nullptr, bool rest_required = false, bool optional = false);

// Throws CLI::ValidationError (a usage error) when the chosen command's
// inventory is given twice or not at all.
void ResolveInventories(CommandValues& v);

// --strict: the inventory's warnings (a group name close to a known one, a
// host in no group, ...) are errors.
void AddStrictFlag(CLI::App* command, bool& strict);
// `diagnostics` with each warning made an error saying "(an error with --strict)".
Diagnostics WarningsAsErrors(const Diagnostics& diagnostics);

// --state DIR.
void AddStateOption(CLI::App* command, CommandValues& v);

// What every command that talks to hosts takes: INVENTORY, --limit,
// --forks, -K, --json and --state. `rest`: run's COMMAND (InventoryArgument).
void AddRemoteOptions(CLI::App* command, CommandValues& v, RemoteCommandOptions& remote,
                      std::vector<std::string>* rest = nullptr);

// -e/--extra-vars (deploy, plan, validate).
void AddExtraVarsOption(CLI::App* command, RemoteCommandOptions& remote);

}  // namespace clusterctl
