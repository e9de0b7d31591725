#include "controller/cli/deploy_command.h"

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

}  // namespace clusterctl
