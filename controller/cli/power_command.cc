#include "controller/cli/power_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/remote_command.h"
#include "controller/power/slurm_guard.h"
#include "controller/run/command_run.h"
#include "inventory/host_selection.h"

namespace clusterctl {
namespace {

struct ActionWords {
  PowerAction action;
  const char* name;
  const char* help;
};

constexpr ActionWords kActions[] = {
    {PowerAction::kStatus, "status", "show each node's power state, as its BMC reports it"},
    {PowerAction::kOn, "on", "power nodes on through their BMCs"},
    {PowerAction::kOff, "off", "power nodes off through their BMCs (hard: no shutdown)"},
    {PowerAction::kCycle, "cycle", "power nodes off and on again through their BMCs"},
    {PowerAction::kReset, "reset", "reset nodes through their BMCs (a hard reboot)"},
    {PowerAction::kSel, "sel", "list the entries of each node's BMC event log (SEL)"},
};

// The Slurm controller: the controller group's first host (slurmctld's
// primary), as the daemon's Slurm reading asks it first.
const Host* SlurmController(const Inventory& inventory) {
  const Group* group = inventory.FindGroup(kGroupController);
  return group && !group->members.empty() ? inventory.FindHost(group->members.front()) : nullptr;
}

// `argv` on the Slurm controller, through the run pipeline (recorded as a
// command run): its output, or why it could not be had.
Result<std::string> OnSlurmController(const Host& controller, const std::vector<std::string>& argv,
                                      const PowerOptions& options, const GlobalOptions& global,
                                      const Services& services) {
  RunRequest request;
  request.kind = RunKind::kCommand;
  request.limit = controller.name;
  request.command = {argv, std::chrono::seconds(30), 1 << 20};
  RemoteCommandOptions remote;
  remote.inventory_path = options.inventory_path;
  int exit_code = 0;
  auto command = RemoteCommand::Prepare(request, remote, global, services, exit_code);
  if (!command) return Status::Unavailable("the run to ask it could not start");
  std::vector<HostResult> results = RunCommand(command->run(), command->sessions(), *services.clock);
  CompleteCommand(command->session(), results, GroupOutputs(results));
  if (results.empty() || results[0].state != HostResult::State::kOk) {
    return Status::Unavailable(results.empty() ? "no answer" : results[0].error);
  }
  const nlohmann::json& data = results[0].data;
  if (data.value("exit_code", -1) != 0) {
    return Status::Unavailable(argv[0] + " exited " + std::to_string(data.value("exit_code", -1)) + ": " +
                               Printable(data.value("output", ""), 200));
  }
  return data.value("output", "");
}

// The hosts Slurm does not let `action` take down, each with why; every
// host refused when Slurm cannot be asked (no guess that it runs nothing).
std::map<std::string, std::string> SlurmRefusals(const Inventory& inventory, const std::vector<const Host*>& hosts,
                                                 const PowerOptions& options, const GlobalOptions& global,
                                                 const Services& services) {
  const Host* controller = SlurmController(inventory);
  if (controller == nullptr || hosts.empty()) return {};  // no Slurm in this inventory
  std::vector<std::string> names;
  for (const Host* h : hosts) names.push_back(h->name);
  Result<std::string> queue = OnSlurmController(*controller, SqueueArgv(names), options, global, services);
  Result<std::string> nodes = queue.ok() ? OnSlurmController(*controller, SinfoArgv(names), options, global, services)
                                         : queue;
  auto jobs = queue.ok() ? ParseSqueueJobs(*queue) : Result<std::vector<SlurmJob>>(queue.status());
  auto drained = nodes.ok() ? ParseDrainedNodes(*nodes) : Result<std::vector<std::string>>(nodes.status());
  if (jobs.ok() && drained.ok()) return PowerRefusals(names, *jobs, *drained);
  const Status& why = jobs.ok() ? drained.status() : jobs.status();
  std::map<std::string, std::string> refusals;
  for (const std::string& name : names) {
    refusals[name] = "cannot ask Slurm on " + controller->name + " whether jobs run on " + name + " (" +
                     why.message() + "): give --force to power it anyway";
  }
  return refusals;
}

}  // namespace

int RunPowerCommand(PowerAction action, const PowerOptions& options, ProcessRunner& runner,
                    const GlobalOptions& global, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(options.inventory_path, services, false);
  if (!inventory) return kExitUsage;
  Result<std::vector<const Host*>> hosts = SelectHosts(*inventory, Join(options.nodes, ","));
  if (!hosts.ok()) {
    std::string message = hosts.status().message();  // host_selection speaks of --limit; here it is NODES
    if (message.rfind("--limit", 0) == 0) message = "NODES" + message.substr(7);
    services.log->Error("clusterctl power: " + message);
    return kExitUsage;
  }
  std::map<std::string, std::string> refused;
  if (TakesNodeDown(action) && !options.force) refused = SlurmRefusals(*inventory, *hosts, options, global, services);
  std::vector<const Host*> allowed;
  for (const Host* h : *hosts) {
    if (!refused.count(h->name)) allowed.push_back(h);
  }
  std::vector<PowerResult> results = RunPower(allowed, action, runner, options.forks);
  for (const auto& [name, why] : refused) results.push_back({inventory->FindHost(name), false, why, {}, {}});
  std::stable_sort(results.begin(), results.end(), [&](const PowerResult& a, const PowerResult& b) {
    return inventory->host_index.at(a.host->name) < inventory->host_index.at(b.host->name);
  });
  std::ostream& out = *services.out;
  if (global.json) {
    out << JsonText(PowerResultsJson(action, results), 2) << "\n";
  } else {
    for (const PowerResult& r : results) out << PowerResultText(r);
  }
  for (const PowerResult& r : results) {
    if (!r.ok) return kExitFailed;
  }
  return kExitOk;
}

void AddPowerCommand(CLI::App& app, CommandValues& v) {
  PowerOptions& o = v.Keep<PowerOptions>();
  CLI::App* power = app.add_subcommand("power", "power control and event logs through each node's BMC (IPMI)");
  power->require_subcommand(1);
  for (const ActionWords& words : kActions) {
    CLI::App* sub = power->add_subcommand(words.name, words.help);
    AddInventoryArgument(sub, v, o.inventory_path, &o.nodes, /*rest_required=*/true);
    sub->add_option("NODES", o.nodes, "hosts: names, groups, ranges, globs; !x excludes");
    sub->add_option("-f,--forks", o.forks, "BMCs asked at once")->check(CLI::Range(1, 1024))->capture_default_str();
    sub->add_flag("--json", v.options.json, "JSON output");
    AddStateOption(sub, v);  // off, cycle, reset: asking Slurm is a recorded command run
    if (TakesNodeDown(words.action)) {
      sub->add_flag("--force", o.force, "even when Slurm runs jobs on a node that is not drained");
    }
    const PowerAction action = words.action;
    sub->callback([&v, &o, action] {
      if (o.nodes.empty()) throw CLI::RequiredError("NODES");
      LocalProcessRunner runner(*v.services.clock);
      v.exit_code = RunPowerCommand(action, o, runner, v.options, v.services);
    });
  }
}

}  // namespace clusterctl
