#include "controller/cli/app.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <deque>

#include "common/duration_text.h"
#include "common/strings.h"
#include "controller/cli/checks_command.h"
#include "controller/cli/command_words.h"
#include "controller/cli/deploy_command.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/facts_command.h"
#include "controller/cli/generate_docs.h"
#include "controller/cli/history_command.h"
#include "controller/cli/hold_command.h"
#include "controller/cli/hostkey_command.h"
#include "controller/cli/inventory_argument.h"
#include "controller/cli/inventory_command.h"
#include "controller/cli/roles_command.h"
#include "controller/cli/option_values.h"
#include "controller/cli/run_command.h"
#include "controller/cli/serve_command.h"
#include "controller/cli/status_command.h"
#include "controller/cli/validate_command.h"
#include "controller/cli/version_text.h"

#ifndef CLUSTERCTL_VERSION
#define CLUSTERCTL_VERSION "dev"
#endif

namespace clusterctl {

// Where the parsed options land: CLI11 binds each option to one of these
// fields, and the callbacks read them. Lives as long as the App.
struct CommandValues {
  explicit CommandValues(const Services& s) : services(s) {
    if (!services.log) {
      own_log = std::make_unique<Logger>(*services.err);
      services.log = own_log.get();
    }
  }
  Services services;
  std::unique_ptr<Logger> own_log;
  int exit_code = kExitOk;
  GlobalOptions options;
  bool verbose = false, quiet = false;
  std::string log_level;
  std::string inventory_path;
  std::string ini_path, cluster_name = "cluster", output_path;
  bool force = false;
  RemoteCommandOptions remote;
  std::vector<std::string> run_argv;
  int run_timeout = 600;
  uint64_t run_max_output = 256 * 1024;
  DeployOptions deploy;
  ValidateOptions validate;
  ServeOptions serve;
  HistoryOptions history;
  std::vector<std::string> forget_hosts;
  std::vector<std::string> hold_command;
  std::string reason;
  std::string generate_format;
  RolesOptions roles;
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
  std::vector<std::string> after_dashes;
};

namespace {

std::string CommandLineText(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 0; i < argc; ++i) words.emplace_back(i == 0 ? "clusterctl" : argv[i]);
  return Join(words, " ");
}

// The positional INVENTORY and -i/--inventory, resolved with the environment
// before the command's callback runs (ResolveInventories). `rest`: see
// InventoryArgument.
void AddInventoryArgument(CLI::App* command, CommandValues& v, std::string& target,
                          std::vector<std::string>* rest = nullptr, bool rest_required = false, bool optional = false) {
  CommandValues::InventorySource& source = v.inventory_sources.emplace_back();
  source = {command, {"", "", rest, rest_required}, &target, optional};
  command->add_option("INVENTORY", source.argument.positional,
                      std::string("inventory file (or -i FILE, or set ") + kInventoryVariable + ")");
  command->add_option("-i,--inventory", source.argument.option, "inventory file, instead of INVENTORY")
      ->type_name("INVENTORY");
}

// Throws CLI::ValidationError (a usage error) when the chosen command's
// inventory is given twice or not at all.
void ResolveInventories(CommandValues& v) {
  for (CommandValues::InventorySource& source : v.inventory_sources) {
    if (!source.command->parsed()) continue;
    if (source.optional && source.argument.positional.empty() && source.argument.option.empty() &&
        !std::getenv(kInventoryVariable)) {
      continue;
    }
    Result<std::string> path = ResolveInventory(source.argument, std::getenv(kInventoryVariable));
    if (!path.ok()) throw CLI::ValidationError(path.status().message());
    *source.target = *path;
  }
}

// Metavars matter beyond --help: the completions complete a PATTERN or HOST
// with the inventory's names, a FILE or DIR with paths (generate_docs.h).
void AddStateOption(CLI::App* command, CommandValues& v) {
  command->add_option("--state", v.options.state_dir, "state directory (default: .clusterctl beside the inventory)")
      ->type_name("DIR");
}

void AddInventoryCommands(CLI::App& app, CommandValues& v) {
  CLI::App* inventory = app.add_subcommand("inventory", "check, show or import an inventory");
  inventory->require_subcommand(1);
  CLI::App* check = inventory->add_subcommand("check", "validate an inventory: exit 0, or 2 with every problem");
  AddInventoryArgument(check, v, v.inventory_path);
  check->add_flag("--json", v.options.json, "one JSON document: ok, and every problem with file, line, column");
  check->callback([&v] { v.exit_code = RunInventoryCheck(v.inventory_path, v.options.json, v.services); });

  CLI::App* show = inventory->add_subcommand("show", "print resolved hosts, groups and variables");
  AddInventoryArgument(show, v, v.inventory_path);
  show->add_flag("--json", v.options.json, "one JSON document");
  show->callback([&v] { v.exit_code = RunInventoryShow(v.inventory_path, v.options.json, v.services); });

  CLI::App* import = inventory->add_subcommand("import", "convert a DeepOps/Ansible INI inventory");
  import->add_option("FILE", v.ini_path, "Ansible INI inventory")->required();
  import->add_option("--cluster", v.cluster_name, "cluster name for the new inventory")->capture_default_str();
  import->add_option("-o,--output", v.output_path, "write here instead of stdout")->type_name("FILE");
  import->add_flag("--force", v.force, "overwrite the output file if it exists");
  import->callback([&v] {
    v.exit_code = RunInventoryImport(v.ini_path, v.cluster_name, v.output_path, v.force, v.services);
  });
}

void AddStatusCommand(CLI::App& app, CommandValues& v) {
  CLI::App* status = app.add_subcommand("status", "per-host state from the state store");
  AddInventoryArgument(status, v, v.inventory_path);
  status->add_flag("--json", v.options.json, "one JSON document");
  AddStateOption(status, v);
  status->callback([&v] { v.exit_code = RunStatus(v.inventory_path, v.options, v.services); });
}

// `rest`: run's COMMAND (InventoryArgument).
void AddRemoteOptions(CLI::App* command, CommandValues& v, std::vector<std::string>* rest = nullptr) {
  AddInventoryArgument(command, v, v.remote.inventory_path, rest);
  command->add_option("-l,--limit", v.remote.limit, "hosts: names, groups, ranges, globs; !x excludes (default: every host)")
      ->type_name("PATTERN");
  command->add_option("-f,--forks", v.remote.forks, "hosts in flight at once")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_flag("-K,--ask-become-pass", v.remote.ask_become_pass,
                    "ask once for the sudo password (or set CLUSTERCTL_SUDO_PASSWORD)");
  command->add_flag("--json", v.options.json, "JSON output");
  AddStateOption(command, v);
}

void AddExtraVarsOption(CLI::App* command, CommandValues& v) {
  command->add_option("-e,--extra-vars", v.remote.extra_vars,
                      "KEY=VALUE or @FILE.yaml: variables over every inventory level (repeatable; typed as YAML)")
      ->type_name("VARS")
      ->allow_extra_args(false);
}

void AddFactsAndRunCommands(CLI::App& app, CommandValues& v) {
  CLI::App* facts = app.add_subcommand("facts", "gather and store facts of every selected host");
  AddRemoteOptions(facts, v);
  facts->callback([&v] { v.exit_code = RunFacts(v.remote, v.options, v.services); });

  CLI::App* run = app.add_subcommand("run", "run a command (no shell) as root on every selected host");
  AddRemoteOptions(run, v, &v.run_argv);
  run->add_option("-t,--timeout", v.run_timeout, "time before the command is killed (90, 60s, 5m, 1h; up to 1d)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(1, 86400))
      ->default_str(FormatDurationSeconds(v.run_timeout));
  run->add_option("--max-output", v.run_max_output, "bytes of stdout and of stderr kept per host (default 262144)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{16} << 20));
  run->add_option("COMMAND", v.run_argv, "the command and its arguments, after --");
  run->callback([&v] {
    v.run_argv.insert(v.run_argv.end(), v.after_dashes.begin(), v.after_dashes.end());
    v.exit_code = RunAdHoc(v.remote, v.run_argv, v.run_timeout, v.run_max_output, v.options, v.services);
  });
}

void AddDeployOptions(CLI::App* command, CommandValues& v) {
  AddRemoteOptions(command, v);
  AddExtraVarsOption(command, v);
  command->add_option("--roles", v.deploy.roles, "only these roles (comma-separated; default: every role of each host)")->delimiter(',');
  command->add_option("--tags", v.deploy.tags, "only steps with one of these tags, their role's included (comma-separated; default: every step)")
      ->delimiter(',');
  command->add_option("--skip-tags", v.deploy.skip_tags, "leave out steps with any of these tags (comma-separated; default: none)")
      ->delimiter(',');
  command->add_flag("--verify", v.deploy.verify, "check every step on the nodes (drift detection)");
  command->add_option("--batch", v.deploy.batch, "roll through hosts N (or P%) at a time (default: all at once)");
  command->add_option("--max-fail", v.deploy.max_fail_percent, "stop starting hosts once P% failed")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  command->add_option("--color", v.deploy.colour,
                      "colour ok/changed/failed/unreachable: auto (on a terminal, unless NO_COLOR is set), always "
                      "or never; never in --json")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

void AddDeployAndPlanCommands(CLI::App& app, CommandValues& v) {
  CLI::App* deploy = app.add_subcommand("deploy", "bring every selected host to the state its roles describe");
  AddDeployOptions(deploy, v);
  deploy->add_flag("--check", v.deploy.check, "change nothing: say what would change (same as plan)");
  deploy->add_flag("--diff", v.deploy.diff, "show file differences");
  deploy->add_option("--rotate-secret", v.deploy.rotate_secrets,
                     "generate this secret anew and put it on every node (e.g. munge_key)");
  deploy->callback([&v] {
    v.deploy.remote = v.remote;
    v.exit_code = RunDeploy(v.deploy, v.options, v.services);
  });
  CLI::App* plan = app.add_subcommand("plan", "what deploy would change, and why (deploy --check --diff)");
  AddDeployOptions(plan, v);
  plan->callback([&v] {
    v.deploy.remote = v.remote;
    v.deploy.check = true;
    v.deploy.diff = true;
    v.exit_code = RunDeploy(v.deploy, v.options, v.services);
  });
}

void AddValidateCommand(CLI::App& app, CommandValues& v) {
  CLI::App* validate =
      app.add_subcommand("validate", "prove the cluster works: checks with thresholds, exit 1 on any failure");
  AddRemoteOptions(validate, v);
  AddExtraVarsOption(validate, v);
  validate->add_option("--checks", v.validate.checks, "only these checks or prefixes (comma-separated; default: all): " +
                                                          Join(AllValidationCheckNames(), ", "))
      ->delimiter(',');
  validate->add_option("--deadline", v.validate.deadline_s, "time for the whole run (90, 60s, 15m, 1h; 10s to 1d)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(10, 86400))
      ->default_str(FormatDurationSeconds(v.validate.deadline_s));
  CLI::App* checks = app.add_subcommand("checks", "the validation checks: name, scope and what each asserts");
  checks->add_flag("--json", v.options.json, "one JSON document");
  checks->callback([&v] { v.exit_code = PrintCheckCatalogue(v.options.json, *v.services.out); });
  validate->callback([&v] {
    v.validate.remote = v.remote;
    v.exit_code = RunValidate(v.validate, v.options, v.services);
  });
}

void AddServeCommand(CLI::App& app, CommandValues& v) {
  ServeOptions& o = v.serve;
  CLI::App* serve = app.add_subcommand("serve", "the daemon: HTTP API, metrics, drift checks and a status page");
  AddInventoryArgument(serve, v, o.inventory_path);
  serve->add_option("--listen", o.listen, "ADDRESS:PORT to serve on")->capture_default_str();
  serve->add_flag("--insecure-listen", o.insecure_listen,
                  "allow a non-loopback --listen over plain HTTP (the token crosses the network in clear)");
  serve->add_option("--verify-interval", o.verify_interval_s, "time between drift checks (90, 60s, 5m, 1h; up to 7d)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(1, 7 * 86400))
      ->default_str(FormatDurationSeconds(o.verify_interval_s));
  serve->add_option("--verify-batch", o.verify_batch, "hosts checked at a time (N or P%)")->capture_default_str();
  serve->add_flag("--remediate", o.remediate,
                  "converge drifted hosts, and deploy inventory changes, without being asked");
  serve->add_option("--max-fail", o.max_fail_percent, "remediation stops starting hosts once P% failed")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  serve->add_option("--stop-grace", o.stop_grace_s, "time the running job's steps get on SIGTERM (30, 30s, 5m; up to 1h)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(0, 3600))
      ->default_str(FormatDurationSeconds(o.stop_grace_s));
  serve->add_flag("--print-token", o.print_token, "print the API token (created at first use) and exit");
  AddStateOption(serve, v);
  serve->callback([&v] { v.exit_code = RunServe(v.serve, v.options, v.services); });
}

void AddHistoryCommand(CLI::App& app, CommandValues& v) {
  CLI::App* history = app.add_subcommand("history", "past runs, a run's steps, or a host's steps");
  AddInventoryArgument(history, v, v.history.inventory_path);
  history->add_option("--run", v.history.run_id, "show this run's steps and events (default: list the runs)");
  history->add_option("--host", v.history.host, "only this host (default: every host)")->type_name("HOST");
  history->add_option("-n,--runs", v.history.limit, "how many runs, newest first")->capture_default_str();
  history->add_flag("--json", v.options.json, "one JSON document");
  AddStateOption(history, v);
  history->callback([&v] { v.exit_code = RunHistory(v.history, v.options, v.services); });
}

void AddHostkeyAndHoldCommands(CLI::App& app, CommandValues& v) {
  CLI::App* hostkey = app.add_subcommand("hostkey", "manage recorded SSH host keys");
  hostkey->require_subcommand(1);
  CLI::App* forget = hostkey->add_subcommand("forget", "forget the recorded host key of reinstalled hosts");
  AddInventoryArgument(forget, v, v.inventory_path, &v.forget_hosts, /*rest_required=*/true);
  forget->add_option("HOST", v.forget_hosts, "hosts (or jump:HOST:PORT)");
  AddStateOption(forget, v);
  forget->callback([&v] {
    if (v.forget_hosts.empty()) throw CLI::RequiredError("HOST");
    v.exit_code = RunHostKeyForget(v.inventory_path, v.forget_hosts, v.options, v.services);
  });

  CLI::App* hold = app.add_subcommand("hold", "hold the state lock for manual maintenance (blocks deploys)");
  AddInventoryArgument(hold, v, v.inventory_path, &v.hold_command);
  hold->add_option("COMMAND", v.hold_command, "command to run while holding (after --); none: until Ctrl-C");
  hold->add_option("--reason", v.reason, "recorded in the state's event log (default: none)");
  AddStateOption(hold, v);
  hold->callback([&v] {
    v.hold_command.insert(v.hold_command.end(), v.after_dashes.begin(), v.after_dashes.end());
    v.exit_code = RunHold(v.inventory_path, v.hold_command, v.reason, v.options, v.services);
  });
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

// For packaging and for the completion scripts themselves; an empty group
// keeps them out of --help, the man page and the completions.
void AddRolesCommands(CLI::App& app, CommandValues& v) {
  CLI::App* roles = app.add_subcommand("roles", "the role catalog: each role, its hosts, its variables (alone: list)");
  roles->callback([&v, roles] {
    if (roles->get_subcommands().empty()) v.exit_code = RunRolesList(v.roles, v.services);
  });
  CLI::App* list = roles->add_subcommand("list", "every role: what it applies to, its hosts, what it does");
  AddInventoryArgument(list, v, v.roles.inventory_path, nullptr, false, true);
  list->add_flag("--json", v.roles.json, "JSON output");
  list->callback([&v] { v.exit_code = RunRolesList(v.roles, v.services); });
  CLI::App* show = roles->add_subcommand("show", "one role: what it does, its hosts, every variable it reads");
  show->add_option("ROLE", v.roles.name, "role name")->required();
  AddInventoryArgument(show, v, v.roles.inventory_path, nullptr, false, true);
  show->add_flag("--json", v.roles.json, "JSON output");
  show->callback([&v] { v.exit_code = RunRolesShow(v.roles, v.services); });
}

void AddHiddenCommands(CLI::App& app, CommandValues& v) {
  CLI::App* generate = app.add_subcommand("__generate", "print the man page or a completion script");
  generate->group("");
  generate->add_option("FORMAT", v.generate_format, "man, bash or zsh")
      ->required()
      ->check(CLI::IsMember({"man", "bash", "zsh"}));
  generate->callback([&v, &app] { v.exit_code = PrintGenerated(app, v.generate_format, *v.services.out); });

  CLI::App* names = app.add_subcommand("__complete-names", "print the inventory's host and group names");
  names->group("");
  names->add_option("INVENTORY", v.inventory_path, "inventory file");
  names->callback([&v] { v.exit_code = RunCompleteNames(v.inventory_path, v.services); });
}

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
  app.set_version_flag("--version", CLUSTERCTL_VERSION);
  AddInventoryCommands(app, v);
  AddStatusCommand(app, v);
  AddFactsAndRunCommands(app, v);
  AddDeployAndPlanCommands(app, v);
  AddValidateCommand(app, v);
  AddServeCommand(app, v);
  AddHistoryCommand(app, v);
  AddHostkeyAndHoldCommands(app, v);
  AddRolesCommands(app, v);
  AddHiddenCommands(app, v);
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
  if (named.command->get_name() == "run" || named.command->get_name() == "hold") {
    values_->after_dashes = WordsAfterDashes(arguments);
  }
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
    services.log->Error(std::string("clusterctl: ") + e.what() + "\nRun '" + CommandName(named) + " --help' for usage.");
    return kExitUsage;
  }
  return values_->exit_code;
}

int RunCommandLine(int argc, char** argv, const Services& services) {
  return CommandLine(services).Run(argc, argv);
}

}  // namespace clusterctl
