#include "controller/cli/deploy_command.h"

#include <unistd.h>

#include <atomic>
#include <set>

#include "common/strings.h"
#include "controller/catalog/role.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/facts_command.h"
#include "controller/engine/executor.h"
#include "controller/engine/planner.h"
#include "controller/engine/report.h"
#include "controller/engine/role_board.h"
#include "controller/engine/state_writer.h"
#include "controller/state/secret_vault.h"
#include "inventory/host_selection.h"
#include "inventory/hostlist.h"
#include "inventory/loader.h"

namespace clusterctl {

std::optional<size_t> ParseBatchSize(const std::string& text, size_t hosts) {
  if (text.empty()) return hosts;
  bool percent = text.back() == '%';
  std::string digits = percent ? text.substr(0, text.size() - 1) : text;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6) {
    return std::nullopt;
  }
  size_t value = std::stoul(digits);
  if (value == 0 || (percent && value > 100)) return std::nullopt;
  size_t size = percent ? (hosts * value + 99) / 100 : value;
  return std::max<size_t>(1, std::min(size, hosts));
}

// Hosts that left the inventory: once a deploy converged every other host
// (the roles drained them and rewrote the cluster's files without them),
// they are marked removed, and the admin learns what stays on the machines.
static void ReportRemovals(const std::vector<std::string>& leaving, bool converged, RemoteCommand& command,
                           const Services& services) {
  const std::string names = CollapseHostList(leaving);
  if (!converged) {
    *services.err << names << ": left the inventory; removal not finished (see the failures above); deploy again\n";
    return;
  }
  for (const std::string& host : leaving) {
    Status marked = command.state().MarkHostRemoved(host, command.run_id());
    if (!marked.ok()) {
      *services.err << "clusterctl: state: " << marked.message() << "\n";
      return;
    }
    auto roles = command.state().RolesRecordedFor(host);
    *services.err << host << ": removed from the cluster (drained, and gone from the files every node shares). "
                  << "clusterctl no longer manages it. Left on the machine: what roles "
                  << (roles.ok() && !roles->empty() ? Join(*roles, ", ") : std::string("(none recorded)"))
                  << " installed (packages, files, services that still run)"
                  << (roles.ok() && std::find(roles->begin(), roles->end(), "munge") != roles->end()
                          ? ", and the cluster's munge key: re-image the machine or rotate the key"
                          : "")
                  << ".\n";
  }
}

int RunDeploy(const DeployOptions& options, const GlobalOptions& global, const Services& services) {
  const auto start = std::chrono::steady_clock::now();
  // 1. Static checks before anything else.
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(options.remote.inventory_path, diagnostics);
  std::optional<Catalog> catalog;
  if (inventory) catalog = Catalog::Load(Catalog::DefaultSources(inventory->base_dir), diagnostics);
  if (catalog) catalog->CheckInventoryRoles(*inventory, diagnostics);
  if (catalog) {
    std::vector<std::string> names;
    for (const auto& [name, role] : catalog->roles()) names.push_back(name);
    for (const std::string& role : options.roles) {
      if (!catalog->Find(role)) {
        diagnostics.Error({"--roles", 0, 0}, "unknown role '" + role + "'" + DidYouMean(role, names) +
                                                 "; roles: " + Join(names, ", "));
      }
    }
  }
  std::optional<size_t> batch_size;
  if (!diagnostics.has_errors()) {
    auto selected = SelectHosts(*inventory, options.remote.limit);
    if (!selected.ok()) {
      diagnostics.Error({"--limit", 0, 0}, selected.status().message());
    } else {
      batch_size = ParseBatchSize(options.batch, selected->size());
      if (!batch_size) diagnostics.Error({"--batch", 0, 0}, "'" + options.batch + "' is not N or P% (1-100)");
    }
  }
  if (diagnostics.has_errors()) {
    *services.err << diagnostics.ToString() << "nothing was changed\n";
    return kExitUsage;
  }

  // 2. Lock, facts.
  int exit_code = kExitOk;
  auto command = RemoteCommand::Prepare(options.check ? "plan" : "deploy", std::move(*inventory), options.remote, global,
                                       services, exit_code);
  if (!command) return exit_code;
  const Inventory& site = command->inventory();  // the loaded inventory, now the command's
  auto stored = command->state().LoadFacts();
  if (!stored.ok()) {
    *services.err << "clusterctl: state: " << stored.status().message() << "\n";
    return kExitFailed;
  }
  std::map<std::string, nlohmann::json> facts;
  for (auto& [host, record] : *stored) facts[host] = std::move(record.facts);
  std::vector<const Host*> need_facts;
  for (const Host* host : command->hosts()) {
    if (options.verify || !facts.count(host->name)) need_facts.push_back(host);
  }
  std::map<std::string, HostReport> early;  // hosts unreachable while gathering facts
  if (!need_facts.empty()) {
    for (const HostResult& r : GatherAndStoreFacts(*command, need_facts)) {
      if (r.state == HostResult::State::kOk) {
        facts[r.host->name] = r.data;
        continue;
      }
      HostReport report;
      report.host = r.host->name;
      report.outcome = r.state == HostResult::State::kUnreachable ? "unreachable" : "failed";
      report.error = r.error;
      early[r.host->name] = report;
    }
  }

  // 3. Plan.
  // Secrets of the roles in use: generated once (plan generates in memory only).
  // A host's roles follow from its groups: once per distinct set of groups.
  std::vector<const Role*> roles_in_use;
  std::set<std::vector<std::string>> group_sets;
  for (const Host* host : command->hosts()) {
    if (!group_sets.insert(host->groups).second) continue;
    for (const Role* role : catalog->RolesFor(*host, site, options.roles)) roles_in_use.push_back(role);
  }
  SecretVault vault(command->state().paths().secrets(), /*persist=*/!options.check);
  if (Status prepared = vault.Prepare(Catalog::SecretsOf(roles_in_use)); !prepared.ok()) {
    *services.err << "clusterctl: " << prepared.message() << "\nnothing was changed\n";
    command->Finish({}, {{"error", "secrets"}});
    return kExitFailed;
  }
  for (const std::string& name : vault.generated()) {
    *services.err << (options.check ? "would generate secret " : "generated secret ") << name << " (kept in "
                  << command->state().paths().secrets() << ")\n";
  }
  PlanInputs inputs{&site, &*catalog, &facts, &vault, options.roles};
  // Hosts gone from the inventory (the state knows them, not yet removed).
  std::vector<std::string> leaving;
  if (auto known = command->state().ListHosts(); known.ok()) {
    for (const HostRecord& record : *known) {
      if (record.in_inventory || record.status == "removed" || record.status == "never") continue;
      leaving.push_back(record.name);
      inputs.removed_hosts.push_back({{"name", record.name}, {"address", record.address.value_or("")}});
    }
  }
  Planner planner(inputs);
  std::vector<HostPlan> plans;
  std::vector<const Host*> runnable;
  for (const Host* host : command->hosts()) {
    if (early.count(host->name)) continue;
    plans.push_back(planner.Plan(*host, diagnostics));
    runnable.push_back(host);
  }
  if (diagnostics.has_errors()) {
    *services.err << diagnostics.ToString() << "nothing was changed\n";
    command->Finish({}, {{"error", "planning failed"}});
    return kExitUsage;
  }

  // 4. Run.
  auto last = command->state().LoadLastStepResults();
  auto intents = command->state().LoadOpenIntents();
  if (!last.ok() || !intents.ok()) {
    *services.err << "clusterctl: state: " << (last.ok() ? intents.status() : last.status()).message() << "\n";
    return kExitFailed;
  }
  std::map<std::string, std::vector<Intent>> intents_by_host;
  for (Intent& i : *intents) intents_by_host[i.host].push_back(std::move(i));

  Reporter::Mode mode = global.json ? Reporter::Mode::kJson
                        : ::isatty(STDOUT_FILENO) ? Reporter::Mode::kLive
                                                  : Reporter::Mode::kPlain;
  Reporter reporter(mode, *services.out, options.check, options.diff || options.check, command->hosts().size());
  RoleBoard board;
  std::unique_ptr<StateWriter> writer;
  if (!options.check) writer = std::make_unique<StateWriter>(command->state());
  ExecutionOptions execution;
  execution.check = options.check;
  execution.verify = options.verify;
  DeployContext context{&command->runner().context(), writer.get(), &board, &reporter, &site, command->run_id(),
                        execution, &*last, &intents_by_host};

  std::vector<HostReport> reports(plans.size());
  std::atomic<size_t> failures{early.size()};
  const size_t budget = command->hosts().size() * static_cast<size_t>(options.max_fail_percent) / 100;
  for (size_t first = 0; first < plans.size(); first += *batch_size) {
    const size_t count = std::min(*batch_size, plans.size() - first);
    for (size_t i = first; i < first + count; ++i) {
      for (const Role* role : plans[i].roles) board.Expect(role->name, plans[i].host->name);
    }
    command->runner().ForEach(count, [&](size_t k) -> Task<void> {
      const size_t i = first + k;
      if (options.max_fail_percent < 100 && failures.load() > budget) {
        reports[i].host = plans[i].host->name;
        reports[i].outcome = "skipped";
        reports[i].error = "not started: the failure budget (--max-fail " + std::to_string(options.max_fail_percent) + "%) is spent";
        board.MarkHostFailed(reports[i].host, reports[i].error);
        co_return;
      }
      reports[i] = co_await ExecuteHost(plans[i], context);
      if (reports[i].outcome == "failed" || reports[i].outcome == "unreachable") ++failures;
    });
  }
  for (auto& [host, report] : early) reports.push_back(report);
  Status written = writer ? writer->Flush() : Status::Ok();
  writer.reset();
  if (!written.ok()) *services.err << "clusterctl: writing the state: " << written.message() << "\n";

  // 5. Recap.
  reporter.Recap(reports, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start));
  int changed = 0, failed = 0;
  std::vector<HostResult> results;
  for (const HostReport& r : reports) {
    changed += r.changed;
    failed += r.failed;
    HostResult result;
    result.host = site.FindHost(r.host);
    result.state = r.outcome == "ok" ? HostResult::State::kOk
                   : r.outcome == "unreachable" ? HostResult::State::kUnreachable
                                                : HostResult::State::kFailed;
    result.error = r.error;
    results.push_back(result);
  }
  if (!options.check && !leaving.empty()) ReportRemovals(leaving, failed == 0 && early.empty(), *command, services);
  nlohmann::json summary = {{"hosts", reports.size()}, {"changed", changed}, {"failed", failed}, {"check", options.check}};
  return command->Finish(results, summary, /*print_failures=*/false);
}

}  // namespace clusterctl
