#include "controller/engine/kinds/package_up_front.h"

#include <algorithm>
#include <map>

#include "common/package_differences.h"
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {
namespace {

constexpr const char* kPackage = "package";

bool Installs(const PlannedStep& step) {
  return step.params.value("state", std::string("present")) == "present" && PinnedVersionOf(step).empty();
}

bool Removes(const PlannedStep& step) {
  return step.kind == kPackage && !step.skipped && step.params.value("state", std::string("present")) == "absent";
}

}  // namespace

std::string PinnedVersionOf(const PlannedStep& step) {
  auto version = step.params.find("version");
  return version != step.params.end() && version->is_string() ? version->get<std::string>() : "";
}

std::vector<std::string> PackageNamesOf(const PlannedStep& step) {
  return step.params.contains("name") ? PackageNames(step.params["name"]) : std::vector<std::string>{};
}

namespace {

const Role* RoleAfter(const HostPlan& plan, const Role* role) {
  for (size_t i = 0; i + 1 < plan.roles.size(); ++i) {
    if (plan.roles[i] == role) return plan.roles[i + 1];
  }
  return nullptr;
}

}  // namespace

UpFrontSteps UpFrontPackageSteps(const HostPlan& plan, const std::function<bool(const PlannedStep&)>& will_run,
                                 const Role* from) {
  std::set<std::string> removed;
  for (const PlannedStep& step : plan.steps) {
    if (Removes(step)) {
      for (const std::string& name : PackageNamesOf(step)) removed.insert(name);
    }
  }
  UpFrontSteps joined;
  std::map<const Role*, bool> leading;  // the role has run only joined steps so far
  bool reached = from == nullptr;
  for (const PlannedStep& step : plan.steps) {
    reached = reached || step.role == from;
    if (!reached || step.skipped) continue;  // run already, or never runs: changes nothing before the others
    // A wait for another host's role ends the role's lead where it comes.
    auto [it, first] = leading.emplace(step.role, step.role->WaitsBefore("").empty());
    if (!step.role->WaitsBefore(step.step->name).empty()) it->second = false;
    const StepKind& kind = FindStepKind(step.kind);
    const bool source = it->second && kind.JoinsUpFrontAsSource() && will_run(step);
    bool package = it->second && step.kind == kPackage && Installs(step) && will_run(step);
    for (const std::string& name : PackageNamesOf(step)) package = package && !removed.count(name);
    if (source) {
      joined.sources.push_back(&step);
    } else if (package) {
      joined.packages.push_back(&step);
    } else {
      it->second = false;
      if (kind.ChangesPackageSources(step)) {
        joined.next_scan = RoleAfter(plan, step.role);
        break;
      }
    }
  }
  return joined;
}

namespace {

// Whether `step` may be part of a run of package steps (PackageRunFrom).
bool JoinsRun(const PlannedStep& step, const std::function<bool(const PlannedStep&)>& will_run) {
  return step.kind == kPackage && step.params.value("state", std::string("present")) == "present" &&
         !step.step->maintenance && step.role->WaitsBefore(step.step->name).empty() && will_run(step);
}

}  // namespace

std::vector<const PlannedStep*> PackageRunFrom(const HostPlan& plan, const PlannedStep& first,
                                               const std::function<bool(const PlannedStep&)>& will_run) {
  std::vector<const PlannedStep*> role;  // the role's steps that are not skipped, in order
  for (const PlannedStep& step : plan.steps) {
    if (step.role == first.role && !step.skipped) role.push_back(&step);
  }
  auto at = std::find(role.begin(), role.end(), &first);
  if (at == role.end() || !JoinsRun(first, will_run)) return {};
  if (at != role.begin() && JoinsRun(**(at - 1), will_run)) return {};  // `first` continues a run
  std::vector<const PlannedStep*> run;
  for (; at != role.end() && JoinsRun(**at, will_run); ++at) run.push_back(*at);
  if (run.size() < 2) run.clear();
  return run;
}

std::vector<std::set<std::string>> ClaimMissing(const std::vector<const PlannedStep*>& steps,
                                                const std::set<std::string>& missing) {
  std::vector<std::set<std::string>> claims(steps.size());
  std::set<std::string> claimed;
  for (size_t i = 0; i < steps.size(); ++i) {
    for (const std::string& name : PackageNamesOf(*steps[i])) {
      if (missing.count(name) && claimed.insert(name).second) claims[i].insert(name);
    }
  }
  return claims;
}

}  // namespace clusterctl
