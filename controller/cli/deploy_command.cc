#include "controller/cli/deploy_command.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdlib>

#include "controller/cli/exit_codes.h"
#include "controller/cli/stop_signals.h"
#include "controller/engine/checked_inventory.h"
#include "controller/engine/deploy_run.h"
#include "controller/output/report.h"
#include "controller/output/status_colour.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

// How long a step running when Ctrl-C comes may take to finish.
constexpr std::chrono::seconds kStopGrace{30};

Reporter::Mode OutputMode(const GlobalOptions& global) {
  if (global.json) return Reporter::Mode::kJson;
  return ::isatty(STDOUT_FILENO) ? Reporter::Mode::kLive : Reporter::Mode::kPlain;
}

}  // namespace

int RunDeploy(const DeployOptions& options, const GlobalOptions& global, const Services& services) {
  Diagnostics diagnostics;
  CheckedInventory checked =
      LoadCheckedInventory(options.remote.inventory_path, options.roles, options.remote.extra_vars, diagnostics);
  std::optional<Inventory>& inventory = checked.inventory;
  std::optional<Catalog>& catalog = checked.catalog;
  if (catalog) CheckTagNames(*catalog, {options.tags, options.skip_tags}, diagnostics);
  if (!ParseBatchSize(options.batch, 1)) {
    diagnostics.Error({"--batch", 0, 0}, "'" + options.batch + "' is not N or P% (1-100)");
  }
  if (diagnostics.has_errors()) {
    LogDiagnostics(diagnostics, *services.log);
    services.log->Error("nothing was changed");
    return kExitUsage;
  }
  int exit_code = kExitOk;
  auto command = RemoteCommand::Prepare(options.check ? "plan" : "deploy", std::move(*inventory), options.remote,
                                        global, services, exit_code);
  if (!command) return exit_code;

  DeploymentInputs inputs{&command->inventory(), &*catalog, command->hosts(), &command->state(), command->run_id(), {}};
  inputs.options.check = options.check;
  inputs.options.verify = options.verify;
  inputs.options.roles = options.roles;
  inputs.options.tags = {options.tags, options.skip_tags};
  inputs.options.rotate_secrets = {options.rotate_secrets.begin(), options.rotate_secrets.end()};
  inputs.options.batch_size = *ParseBatchSize(options.batch, command->hosts().size());
  inputs.options.max_fail_percent = options.max_fail_percent;
  Reporter reporter(OutputMode(global), *services.out, options.diff || options.check);
  const ColourChoice colour = ParseColourChoice(options.colour).value_or(ColourChoice::kAuto);
  reporter.SetColour(!global.json && UseColour(colour, ::isatty(STDOUT_FILENO), std::getenv("NO_COLOR")));
  MessagePrinter messages(*services.log);
  ListenerFanout listeners({&reporter, &messages});
  StopOnSignals stop(*services.log, kStopGrace);
  DeploymentResult result = RunDeployment(inputs, command->runner(), listeners, stop.token());

  if (result.ending == DeploymentResult::Ending::kInvalidInput) {
    services.log->Error(result.error + "nothing was changed");
    command->Finish({}, {{"error", "planning failed"}}, false, RunStatus::kFailed);
    return kExitUsage;
  }
  if (result.ending == DeploymentResult::Ending::kFailed) {
    services.log->Error("clusterctl: " + result.error + "\nnothing was changed");
    command->Finish({}, {{"error", result.error}}, false, RunStatus::kFailed);
    return kExitFailed;
  }
  int finished = command->Finish(HostResultsOf(result, command->inventory()), RunSummaryOf(result, options.check),
                                 /*print_failures=*/false,
                                 result.stopped ? std::optional(RunStatus::kInterrupted) : std::nullopt);
  return result.stopped ? kExitFailed : finished;
}

namespace {

// What deploy and plan both take.
void AddDeployOptions(CLI::App* command, CommandValues& v, DeployOptions& o) {
  AddRemoteOptions(command, v, o.remote);
  AddExtraVarsOption(command, o.remote);
  command->add_option("--roles", o.roles, "only these roles (comma-separated; default: every role of each host)")->delimiter(',');
  command->add_option("--tags", o.tags, "only steps with one of these tags, their role's included (comma-separated; default: every step)")
      ->delimiter(',');
  command->add_option("--skip-tags", o.skip_tags, "leave out steps with any of these tags (comma-separated; default: none)")
      ->delimiter(',');
  command->add_flag("--verify", o.verify, "check every step on the nodes (drift detection)");
  command->add_option("--batch", o.batch, "roll through hosts N (or P%) at a time (default: all at once)");
  command->add_option("--max-fail", o.max_fail_percent, "stop starting hosts once P% failed")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  command->add_option("--color", o.colour,
                      "colour ok/changed/failed/unreachable: auto (on a terminal, unless NO_COLOR is set), always "
                      "or never; never in --json")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

}  // namespace

void AddDeployCommands(CLI::App& app, CommandValues& v) {
  DeployOptions& deploy_options = v.Keep<DeployOptions>();
  CLI::App* deploy = app.add_subcommand("deploy", "bring every selected host to the state its roles describe");
  AddDeployOptions(deploy, v, deploy_options);
  deploy->add_flag("--check", deploy_options.check, "change nothing: say what would change (same as plan)");
  deploy->add_flag("--diff", deploy_options.diff, "show file differences");
  deploy->add_option("--rotate-secret", deploy_options.rotate_secrets,
                     "generate this secret anew and put it on every node (e.g. munge_key)");
  deploy->callback([&v, &deploy_options] { v.exit_code = RunDeploy(deploy_options, v.options, v.services); });

  DeployOptions& plan_options = v.Keep<DeployOptions>();
  CLI::App* plan = app.add_subcommand("plan", "what deploy would change, and why (deploy --check --diff)");
  AddDeployOptions(plan, v, plan_options);
  plan->callback([&v, &plan_options] {
    plan_options.check = true;
    plan_options.diff = true;
    v.exit_code = RunDeploy(plan_options, v.options, v.services);
  });
}

}  // namespace clusterctl
