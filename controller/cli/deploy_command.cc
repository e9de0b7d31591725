#include "controller/cli/deploy_command.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdlib>

#include "controller/cli/exit_codes.h"
#include "controller/cli/stop_signals.h"
#include "controller/engine/deploy_run.h"
#include "controller/output/report.h"
#include "controller/run/checked_inventory.h"
#include "controller/run/run_pipeline.h"
#include "controller/output/status_colour.h"

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
  RunRequest request;
  request.kind = options.check ? RunKind::kPlan : RunKind::kDeploy;
  request.limit = options.remote.limit;
  request.roles = options.roles;
  request.tags = {options.tags, options.skip_tags};
  request.verify = options.verify;
  request.batch = options.batch;
  request.max_fail_percent = options.max_fail_percent;
  request.rotate_secrets = {options.rotate_secrets.begin(), options.rotate_secrets.end()};
  Diagnostics diagnostics;
  CheckedInventory checked =
      LoadCheckedInventory(options.remote.inventory_path, options.roles, options.remote.extra_vars, diagnostics);
  const Catalog* catalog = checked.catalog ? &*checked.catalog : nullptr;
  if (options.strict) diagnostics = WarningsAsErrors(diagnostics);
  ReportRunProblems(CheckRunRequest(request, catalog), diagnostics, *services.log);
  if (diagnostics.has_errors()) {
    LogDiagnostics(diagnostics, *services.log);
    services.log->Error("nothing was changed");
    return kExitUsage;
  }
  int exit_code = kExitOk;
  auto command = RemoteCommand::Prepare(request, std::move(*checked.inventory), catalog, options.remote, global,
                                        services, exit_code);
  if (!command) return exit_code;

  Reporter reporter(OutputMode(global), *services.out, options.diff || options.check);
  const ColourChoice colour = ParseColourChoice(options.colour).value_or(ColourChoice::kAuto);
  reporter.SetColour(!global.json && UseColour(colour, ::isatty(STDOUT_FILENO), std::getenv("NO_COLOR")));
  MessagePrinter messages(*services.log);
  ListenerFanout listeners({&reporter, &messages});
  StopOnSignals stop(*services.log, kStopGrace);
  DeploymentResult result = Deploy(command->run(), command->session(), listeners, stop.token());
  CompletedRun completed = CompleteDeployment(command->session(), command->run(), result);

  if (result.ending == DeploymentResult::Ending::kInvalidInput) {
    services.log->Error(result.error + "nothing was changed");
    command->Report(completed);
    return kExitUsage;
  }
  if (result.ending == DeploymentResult::Ending::kFailed) {
    services.log->Error("clusterctl: " + result.error + "\nnothing was changed");
    command->Report(completed);
    return kExitFailed;
  }
  return command->Report(completed);
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
  AddStrictFlag(command, o.strict);
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
