#include "controller/run/run_request.h"

#include "controller/run/checked_inventory.h"
#include "inventory/host_selection.h"

namespace clusterctl {
namespace {

using Field = RunProblem::Field;

bool Deploys(RunKind kind) { return kind == RunKind::kDeploy || kind == RunKind::kPlan || kind == RunKind::kDrift; }

void Add(std::vector<RunProblem>& problems, Field field, std::vector<std::string> messages) {
  for (std::string& message : messages) problems.push_back({field, std::move(message)});
}

void CheckDeployment(const RunRequest& request, const Catalog* catalog, std::vector<RunProblem>& problems) {
  if (catalog) {
    Add(problems, Field::kRoles, UnknownRoles(*catalog, request.roles));
    Add(problems, Field::kTags, UnknownTags(*catalog, request.tags.tags));
    Add(problems, Field::kSkipTags, UnknownTags(*catalog, request.tags.skip_tags));
  }
  if (!ParseBatchSize(request.batch, 1)) {
    problems.push_back({Field::kBatch, "'" + request.batch + "' is not N or P% (1-100)"});
  }
  if (request.max_fail_percent < 0 || request.max_fail_percent > 100) {
    problems.push_back({Field::kMaxFail, "a percentage, 0-100"});
  }
}

}  // namespace

DeploymentOptions PreparedRun::Deployment() const {
  DeploymentOptions options;
  options.check = request.kind != RunKind::kDeploy;
  options.verify = request.verify || request.kind == RunKind::kDrift;
  options.roles = request.roles;
  options.tags = request.tags;
  options.rotate_secrets = request.rotate_secrets;
  options.batch_size = batch_size;
  options.max_fail_percent = request.max_fail_percent;
  return options;
}

std::vector<RunProblem> CheckRunRequest(const RunRequest& request, const Catalog* catalog) {
  std::vector<RunProblem> problems;
  if (Deploys(request.kind)) CheckDeployment(request, catalog, problems);
  if (request.kind == RunKind::kValidate) {
    auto checks = CheckSelection::Parse(request.checks, request.level);
    if (!checks.ok()) problems.push_back({Field::kChecks, checks.status().message()});
    if (request.drain_failed && request.level != CheckLevel::kAcceptance) {
      problems.push_back({Field::kChecks, "draining failed nodes is for the acceptance level (--level acceptance)"});
    }
  }
  if (request.kind == RunKind::kCommand && request.command.argv.empty()) {
    problems.push_back({Field::kCommand, "no command to run"});
  }
  return problems;
}

std::variant<PreparedRun, std::vector<RunProblem>> PrepareRun(const RunRequest& request, const Inventory& inventory,
                                                              const Catalog* catalog) {
  std::vector<RunProblem> problems = CheckRunRequest(request, catalog);
  PreparedRun prepared;
  prepared.request = request;
  prepared.inventory = &inventory;
  prepared.catalog = catalog;
  auto selected = SelectHosts(inventory, request.limit);
  if (selected.ok()) {
    prepared.hosts = std::move(selected).value();
  } else {
    problems.push_back({Field::kLimit, selected.status().message()});
  }
  if (request.kind == RunKind::kValidate) {
    auto checks = CheckSelection::Parse(request.checks, request.level);
    if (checks.ok()) prepared.checks = std::move(checks).value();
  }
  if (!problems.empty()) return problems;
  if (Deploys(request.kind)) prepared.batch_size = ParseBatchSize(request.batch, prepared.hosts.size()).value_or(0);
  return prepared;
}

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

}  // namespace clusterctl
