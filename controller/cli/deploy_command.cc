#include "controller/cli/deploy_command.h"

#include <unistd.h>

#include <cstdlib>

#include "controller/cli/exit_codes.h"
#include "controller/cli/stop_signals.h"
#include "controller/engine/checked_inventory.h"
#include "controller/engine/deploy_run.h"
#include "controller/run/run_pipeline.h"
#include "controller/engine/report.h"
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
  ReportRunProblems(CheckRunRequest(request, catalog), options.remote.inventory_path, diagnostics, *services.log);
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

}  // namespace clusterctl
