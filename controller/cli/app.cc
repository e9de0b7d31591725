#include "controller/cli/app.h"

#include <CLI/CLI.hpp>

#include "common/strings.h"
#include "controller/cli/deploy_command.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/history_command.h"
#include "controller/cli/facts_command.h"
#include "controller/cli/hold_command.h"
#include "controller/cli/hostkey_command.h"
#include "controller/cli/inventory_command.h"
#include "controller/cli/run_command.h"
#include "controller/cli/serve_command.h"
#include "controller/cli/status_command.h"
#include "controller/cli/validate_command.h"

#ifndef CLUSTERCTL_VERSION
#define CLUSTERCTL_VERSION "dev"
#endif

namespace clusterctl {
namespace {

std::string CommandLine(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 0; i < argc; ++i) words.emplace_back(i == 0 ? "clusterctl" : argv[i]);
  return Join(words, " ");
}

}  // namespace

int RunCommandLine(int argc, char** argv, const Services& services) {
  CLI::App app{"clusterctl: provision and configure GPU clusters over SSH"};
  app.require_subcommand(1);
  app.set_version_flag("--version", CLUSTERCTL_VERSION);
  GlobalOptions options;
  options.command_line = CommandLine(argc, argv);
  int exit_code = kExitOk;

  std::string inventory_path;
  auto add_state_option = [&](CLI::App* command) {
    command->add_option("--state", options.state_dir, "state directory (default: .clusterctl beside the inventory)");
  };

  CLI::App* inventory = app.add_subcommand("inventory", "check, show or import an inventory");
  inventory->require_subcommand(1);
  CLI::App* check = inventory->add_subcommand("check", "validate an inventory: exit 0, or 2 with every problem");
  check->add_option("INVENTORY", inventory_path, "inventory file")->required();
  check->callback([&] { exit_code = RunInventoryCheck(inventory_path, services); });

  CLI::App* show = inventory->add_subcommand("show", "print resolved hosts, groups and variables");
  show->add_option("INVENTORY", inventory_path, "inventory file")->required();
  show->add_flag("--json", options.json, "one JSON document");
  show->callback([&] { exit_code = RunInventoryShow(inventory_path, options.json, services); });

  std::string ini_path, cluster_name = "cluster", output_path;
  bool force = false;
  CLI::App* import = inventory->add_subcommand("import", "convert a DeepOps/Ansible INI inventory");
  import->add_option("FILE", ini_path, "Ansible INI inventory")->required();
  import->add_option("--cluster", cluster_name, "cluster name for the new inventory")->capture_default_str();
  import->add_option("-o,--output", output_path, "write here instead of stdout");
  import->add_flag("--force", force, "overwrite the output file if it exists");
  import->callback([&] { exit_code = RunInventoryImport(ini_path, cluster_name, output_path, force, services); });

  CLI::App* status = app.add_subcommand("status", "per-host state from the state store");
  status->add_option("INVENTORY", inventory_path, "inventory file")->required();
  status->add_flag("--json", options.json, "one JSON document");
  add_state_option(status);
  status->callback([&] { exit_code = RunStatus(inventory_path, options, services); });

  RemoteCommandOptions remote;
  auto add_remote_options = [&](CLI::App* command) {
    command->add_option("INVENTORY", remote.inventory_path, "inventory file")->required();
    command->add_option("-l,--limit", remote.limit, "hosts: names, groups, ranges, globs; !x excludes");
    command->add_option("-f,--forks", remote.forks, "hosts in flight at once")->check(CLI::Range(1, 100000));
    command->add_flag("-K,--ask-become-pass", remote.ask_become_pass,
                      "ask once for the sudo password (or set CLUSTERCTL_SUDO_PASSWORD)");
    command->add_flag("--json", options.json, "JSON output");
    add_state_option(command);
  };

  CLI::App* facts = app.add_subcommand("facts", "gather and store facts of every selected host");
  add_remote_options(facts);
  facts->callback([&] { exit_code = RunFacts(remote, options, services); });

  std::vector<std::string> run_argv;
  int run_timeout = 600;
  uint64_t run_max_output = 256 * 1024;
  CLI::App* run = app.add_subcommand("run", "run a command (no shell) as root on every selected host");
  add_remote_options(run);
  run->add_option("-t,--timeout", run_timeout, "seconds before the command is killed")->check(CLI::Range(1, 86400));
  run->add_option("--max-output", run_max_output, "bytes of stdout and of stderr kept per host (default 262144)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{16} << 20));
  run->add_option("COMMAND", run_argv, "the command and its arguments, after --");
  run->callback([&] { exit_code = RunAdHoc(remote, run_argv, run_timeout, run_max_output, options, services); });

  DeployOptions deploy_options;
  auto add_deploy_options = [&](CLI::App* command) {
    add_remote_options(command);
    deploy_options.remote.inventory_path.clear();
    command->add_option("--roles", deploy_options.roles, "only these roles (comma-separated)")->delimiter(',');
    command->add_flag("--verify", deploy_options.verify, "check every step on the nodes (drift detection)");
    command->add_option("--batch", deploy_options.batch, "roll through hosts N (or P%) at a time");
    command->add_option("--max-fail", deploy_options.max_fail_percent, "stop starting hosts once P% failed")
        ->check(CLI::Range(0, 100));
  };
  CLI::App* deploy = app.add_subcommand("deploy", "bring every selected host to the state its roles describe");
  add_deploy_options(deploy);
  deploy->add_flag("--check", deploy_options.check, "change nothing: say what would change (same as plan)");
  deploy->add_flag("--diff", deploy_options.diff, "show file differences");
  deploy->add_option("--rotate-secret", deploy_options.rotate_secrets,
                     "generate this secret anew and put it on every node (e.g. munge_key)");
  deploy->callback([&] {
    deploy_options.remote = remote;
    exit_code = RunDeploy(deploy_options, options, services);
  });
  CLI::App* plan = app.add_subcommand("plan", "what deploy would change, and why (deploy --check --diff)");
  add_deploy_options(plan);
  plan->callback([&] {
    deploy_options.remote = remote;
    deploy_options.check = true;
    deploy_options.diff = true;
    exit_code = RunDeploy(deploy_options, options, services);
  });

  ValidateOptions validate_options;
  CLI::App* validate = app.add_subcommand("validate", "prove the cluster works: checks with thresholds, exit 1 on any failure");
  add_remote_options(validate);
  validate->add_option("--checks", validate_options.checks, "only these checks or prefixes (comma-separated): " +
                                                             Join(AllValidationCheckNames(), ","))
      ->delimiter(',');
  validate->add_option("--deadline", validate_options.deadline_s, "seconds for the whole run")->check(CLI::Range(10, 86400));
  validate->callback([&] {
    validate_options.remote = remote;
    exit_code = RunValidate(validate_options, options, services);
  });

  ServeOptions serve_options;
  CLI::App* serve = app.add_subcommand("serve", "the daemon: HTTP API, metrics, drift checks and a status page");
  serve->add_option("INVENTORY", serve_options.inventory_path, "inventory file")->required();
  serve->add_option("--listen", serve_options.listen, "ADDRESS:PORT to serve on")->capture_default_str();
  serve->add_flag("--insecure-listen", serve_options.insecure_listen,
                  "allow a non-loopback --listen over plain HTTP (the token crosses the network in clear)");
  serve->add_option("--verify-interval", serve_options.verify_interval_s, "seconds between drift checks")
      ->check(CLI::Range(1, 7 * 86400))
      ->capture_default_str();
  serve->add_option("--verify-batch", serve_options.verify_batch, "hosts checked at a time (N or P%)")
      ->capture_default_str();
  serve->add_flag("--remediate", serve_options.remediate,
                  "converge drifted hosts, and deploy inventory changes, without being asked");
  serve->add_option("--max-fail", serve_options.max_fail_percent, "remediation stops starting hosts once P% failed")
      ->check(CLI::Range(0, 100));
  serve->add_option("--stop-grace", serve_options.stop_grace_s, "seconds the running job's steps get on SIGTERM")
      ->check(CLI::Range(0, 3600))
      ->capture_default_str();
  serve->add_flag("--print-token", serve_options.print_token, "print the API token (created at first use) and exit");
  add_state_option(serve);
  serve->callback([&] { exit_code = RunServe(serve_options, options, services); });

  HistoryOptions history_options;
  CLI::App* history = app.add_subcommand("history", "past runs, a run's steps, or a host's steps");
  history->add_option("INVENTORY", history_options.inventory_path, "inventory file")->required();
  history->add_option("--run", history_options.run_id, "show this run's steps and events");
  history->add_option("--host", history_options.host, "only this host");
  history->add_option("-n,--limit", history_options.limit, "how many runs");
  history->add_flag("--json", options.json, "one JSON document");
  add_state_option(history);
  history->callback([&] { exit_code = RunHistory(history_options, options, services); });

  std::vector<std::string> forget_hosts;
  CLI::App* hostkey = app.add_subcommand("hostkey", "manage recorded SSH host keys");
  hostkey->require_subcommand(1);
  CLI::App* forget = hostkey->add_subcommand("forget", "forget the recorded host key of reinstalled hosts");
  forget->add_option("INVENTORY", inventory_path, "inventory file")->required();
  forget->add_option("HOST", forget_hosts, "hosts (or jump:HOST:PORT)")->required();
  add_state_option(forget);
  forget->callback([&] { exit_code = RunHostKeyForget(inventory_path, forget_hosts, options, services); });

  std::vector<std::string> hold_command;
  std::string reason;
  CLI::App* hold = app.add_subcommand("hold", "hold the state lock for manual maintenance (blocks deploys)");
  hold->add_option("INVENTORY", inventory_path, "inventory file")->required();
  hold->add_option("COMMAND", hold_command, "command to run while holding (after --); none: until Ctrl-C");
  hold->add_option("--reason", reason, "recorded in the state's event log");
  add_state_option(hold);
  hold->callback([&] { exit_code = RunHold(inventory_path, hold_command, reason, options, services); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    *services.out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    *services.out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    *services.out << CLUSTERCTL_VERSION << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    *services.err << "clusterctl: " << e.what() << "\nRun 'clusterctl --help' for usage.\n";
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace clusterctl
