#include "controller/cli/app.h"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "common/strings.h"
#include "controller/cli/checks_command.h"
#include "controller/cli/command_values.h"
#include "controller/cli/command_words.h"
#include "controller/cli/deploy_command.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/facts_command.h"
#include "controller/cli/generate_docs.h"
#include "controller/cli/history_command.h"
#include "controller/cli/hold_command.h"
#include "controller/cli/hostkey_command.h"
#include "controller/cli/inventory_command.h"
#include "controller/cli/power_command.h"
#include "controller/cli/roles_command.h"
#include "controller/cli/run_command.h"
#include "controller/cli/serve_command.h"
#include "controller/cli/status_command.h"
#include "controller/cli/validate_command.h"
#include "controller/cli/vars_command.h"
#include "controller/cli/version_text.h"

#ifndef CLUSTERCTL_VERSION
#define CLUSTERCTL_VERSION "dev"
#endif

namespace clusterctl {
namespace {

std::string CommandLineText(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 0; i < argc; ++i) words.emplace_back(i == 0 ? "clusterctl" : argv[i]);
  return Join(words, " ");
}

// -v, -q and --log-level on every command that runs something. They set the
// level of the diagnostics on stderr (never of what goes to stdout).
void AddLogOptions(CLI::App* command, CommandValues& v) {
  CLI::Option* verbose = command->add_flag("-v,--verbose", v.verbose, "show debug messages too (--log-level debug)");
  CLI::Option* quiet = command->add_flag("-q,--quiet", v.quiet, "show errors only (--log-level error)");
  command->add_option("--log-level", v.log_level, "messages shown on stderr: error, warning, info (default) or debug")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"error", "warning", "info", "debug"}))
      ->excludes(verbose)
      ->excludes(quiet);
  quiet->excludes(verbose);
}

void AddLogOptionsToEveryCommand(CLI::App& app, CommandValues& v) {
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_subcommands({}).empty()) {
      AddLogOptions(sub, v);
    } else {
      AddLogOptionsToEveryCommand(*sub, v);
    }
  }
}

// A list option (--roles a,b, -e K=V, --rotate-secret NAME) takes one word
// per occurrence (repeat it, or use commas): without this CLI11 lets it
// swallow the words after it, so `deploy --roles chrony inventory.yaml`
// would read the inventory's name as a role now that INVENTORY is optional
// (it may come from -i or CLUSTERCTL_INVENTORY).
void OneWordPerListOption(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (!option->get_positional() && option->get_items_expected_max() > 1) option->allow_extra_args(false);
  }
  for (CLI::App* sub : app.get_subcommands({})) OneWordPerListOption(*sub);
}

LogLevel ChosenLogLevel(const CommandValues& v) {
  if (v.verbose) return LogLevel::kDebug;
  if (v.quiet) return LogLevel::kError;
  return ParseLogLevel(v.log_level).value_or(LogLevel::kInfo);
}

// `clusterctl version`: what --version and -V print.
void AddVersionCommand(CLI::App& app, CommandValues& v) {
  CLI::App* version = app.add_subcommand("version", "print the version, the commit, the agent protocol and agent builds");
  version->callback([&v] { *v.services.out << VersionText(); });
}

// Every subcommand, in the order --help, the man page and the completions
// show them; each defines itself in its own *_command.cc.
using AddCommand = void (*)(CLI::App&, CommandValues&);
constexpr AddCommand kCommands[] = {
    AddInventoryCommand, AddStatusCommand,  AddFactsCommand,   AddRunCommand,     AddDeployCommands,
    AddValidateCommand,  AddChecksCommand,  AddServeCommand,   AddHistoryCommand, AddHostkeyCommand,
    AddPowerCommand,     AddHoldCommand,    AddRolesCommand,   AddVarsCommand,    AddVersionCommand,
    AddCompletionCommand, AddGenerateCommand, AddCompleteNamesCommand,
};

// Takes the words after the first `--` out of `arguments` and returns them.
std::vector<std::string> WordsAfterDashes(std::vector<std::string>& arguments) {
  auto dashes = std::find(arguments.begin(), arguments.end(), "--");
  if (dashes == arguments.end()) return {};
  std::vector<std::string> after(dashes + 1, arguments.end());
  arguments.erase(dashes, arguments.end());
  return after;
}

}  // namespace

CommandLine::CommandLine(const Services& services)
    : values_(std::make_unique<CommandValues>(services)),
      app_(std::make_unique<CLI::App>("clusterctl: provision and configure GPU clusters over SSH", "clusterctl")) {
  CLI::App& app = *app_;
  CommandValues& v = *values_;
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", CLUSTERCTL_VERSION);
  for (AddCommand add : kCommands) add(app, v);
  AddLogOptionsToEveryCommand(app, v);
  OneWordPerListOption(app);
  // After every option is read, before any command's callback runs.
  app.parse_complete_callback([&v] {
    v.services.log->SetLevel(ChosenLogLevel(v));
    ResolveInventories(v);
  });
}

CommandLine::~CommandLine() = default;

int CommandLine::Run(int argc, char** argv) {
  const Services& services = values_->services;
  values_->options.command_line = CommandLineText(argc, argv);
  std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
  const bool help = !words.empty() && words[0] == "help";  // `clusterctl help [COMMAND...]`
  if (help) words.erase(words.begin());
  const NamedCommand named = FindNamedCommand(*app_, words);
  if (std::string unknown = UnknownCommandError(named, words); !unknown.empty()) {
    services.log->Error("clusterctl: " + unknown + "\nRun 'clusterctl --help' for usage.");
    return kExitUsage;
  }
  if (help) {
    *services.out << named.command->help();
    return kExitOk;
  }
  std::vector<std::string> arguments(argv + std::min(argc, 1), argv + argc);
  if (values_->take_words_after_dashes.count(named.command) != 0) values_->after_dashes = WordsAfterDashes(arguments);
  std::reverse(arguments.begin(), arguments.end());  // as CLI11 takes a vector
  try {
    app_->parse(arguments);
  } catch (const CLI::CallForHelp&) {
    *services.out << app_->help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    *services.out << app_->help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    *services.out << VersionText();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // CLI11 calls an unknown option "not expected"; name it and suggest the closest.
    std::string unknown_option = dynamic_cast<const CLI::ExtrasError*>(&e) ? UnknownOptionError(named, words) : "";
    services.log->Error("clusterctl: " + (unknown_option.empty() ? std::string(e.what()) : unknown_option) + "\nRun '" +
                        CommandName(named) + " --help' for usage.");
    return kExitUsage;
  }
  return values_->exit_code;
}

int RunCommandLine(int argc, char** argv, const Services& services) {
  return CommandLine(services).Run(argc, argv);
}

}  // namespace clusterctl
