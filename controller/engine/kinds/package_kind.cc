// package: the packages of a host's leading package steps installed up
// front in one transaction (package_up_front.h says which join, and why),
// and those of a run of package steps of one role (the kernel headers and
// the pinned driver) in one transaction as its first step is about to run;
// then each step credited in its place with what was installed for it.
//
// Order of work, so that a kill -9 at any moment resumes correctly:
//   1. one check of all the joined steps' packages: which are missing;
//   2. the intents of every step that claims a missing one, recorded (a
//      restart its change owes happens exactly once even if the run dies);
//   3. the install (apply) of those packages in one request;
//   4. each step credited (KindHost::CreditUpFront) with the names it
//      claimed that are now installed; it then runs in its place as ever.
// A failed install never fails the host: the note says why, one more check
// finds what it did install (credited), and each step installs the rest.
#include <algorithm>
#include <set>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include "common/package_differences.h"
#include "common/strings.h"
#include "controller/engine/kinds/package_up_front.h"
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {
namespace {

constexpr const char* kPackage = "package";

std::set<std::string> MissingIn(const agent_protocol::ResourceResult& checked) {
  std::set<std::string> missing;
  for (const std::string& difference : checked.differences) {
    if (auto name = MissingPackageOf(difference)) missing.insert(*name);
  }
  return missing;
}

// One request for all of `steps`' packages, sent as the first step's kind;
// a pinned step's names at its version.
PlannedStep BatchOf(const std::vector<const PlannedStep*>& steps, const std::set<std::string>& names) {
  PlannedStep batch = *steps.front();
  batch.params = {{"name", std::vector<std::string>(names.begin(), names.end())}};
  for (const PlannedStep* step : steps) {
    const std::string version = PinnedVersionOf(*step);
    for (const std::string& name : PackageNamesOf(*step)) {
      if (!version.empty() && names.count(name)) batch.params["versions"][name] = version;
    }
  }
  batch.body.clear();
  return batch;
}

// The steps that join, in order, up to the first pinned one with a name not
// missing (installed, at any version: its family moves alone, in its place)
// or named by a step before it.
std::vector<const PlannedStep*> JoiningSteps(const std::vector<const PlannedStep*>& steps,
                                             const std::set<std::string>& missing) {
  std::vector<const PlannedStep*> joining;
  std::set<std::string> named;
  for (const PlannedStep* step : steps) {
    const std::vector<std::string> names = PackageNamesOf(*step);
    if (!PinnedVersionOf(*step).empty() &&
        std::any_of(names.begin(), names.end(), [&](const std::string& n) { return !missing.count(n) || named.count(n); })) {
      break;
    }
    named.insert(names.begin(), names.end());
    joining.push_back(step);
  }
  return joining;
}

// How one transaction for several steps shows: its start, its note, and
// what each step it installed for is credited with.
struct BatchWords {
  std::string started;    // "packages up front"
  std::string installed;  // "installed up front in one transaction"
  std::string failed;     // "up front": "installing N packages up front failed ..."
  std::string credit;     // " installed up front (the run's first transaction)"
};

BatchWords UpFrontWords() {
  return {"packages up front", "installed up front in one transaction", "up front",
          " installed up front (the run's first transaction)"};
}

BatchWords RunWords(const PlannedStep& first) {
  const std::string from = first.Identity();
  return {"packages in one transaction from " + from, "installed in one transaction for the package steps from " + from,
          "in one transaction for the package steps from " + from,
          " installed in one transaction with the package steps from " + from};
}

class PackageKind final : public StepKind {
 public:
  Task<bool> UpFront(KindHost& host, const HostPlan& plan, const Role& next) const override {
    // The memo: the role where the next scan starts (the first role at first).
    nlohmann::json& scan_at = host.KindMemo(kPackage);
    if (scan_at.is_null()) scan_at = plan.roles.empty() ? "" : plan.roles.front()->name;
    if (scan_at != next.name) co_return true;
    const UpFrontSteps work =
        UpFrontPackageSteps(plan, [&host](const PlannedStep& s) { return host.WillRun(s); }, &next);
    scan_at = work.next_scan ? work.next_scan->name : "";
    const std::vector<const PlannedStep*>& steps = work.packages;
    if (steps.size() < 2) co_return true;  // one step is its own transaction already
    const SourcesAdded added = co_await AddSources(host, work.sources);
    if (added != SourcesAdded::kAll) co_return added == SourcesAdded::kFailed;  // failed: each step meets it in its place
    co_return co_await InstallTogether(host, steps, UpFrontWords());
  }

  // A run of package steps (PackageRunFrom) in one transaction as its first
  // step is about to run.
  Task<bool> BeforeStep(KindHost& host, const HostPlan& plan, const PlannedStep& step) const override {
    const std::vector<const PlannedStep*> run =
        PackageRunFrom(plan, step, [&host](const PlannedStep& s) { return host.WillRun(s); });
    if (run.empty()) co_return true;
    co_return co_await InstallTogether(host, run, RunWords(step));
  }

  // The steps of `candidates` that join (JoiningSteps) and the packages
  // missing for them, after one check; none when the check failed.
  struct Batch {
    std::vector<const PlannedStep*> steps;
    std::set<std::string> missing;
  };
  static Task<Batch> CheckTogether(KindHost& host, const std::vector<const PlannedStep*>& candidates) {
    std::set<std::string> names;
    for (const PlannedStep* step : candidates) {
      for (const std::string& name : PackageNamesOf(*step)) names.insert(name);
    }
    const PlannedStep all = BatchOf(candidates, names);
    const agent_protocol::ResourceResult checked = co_await host.transport().Call(all, false);
    Batch batch;
    if (checked.failed || host.transport().SessionLost()) co_return batch;  // each step meets it in its place
    const std::set<std::string> found = MissingIn(checked);
    batch.steps = JoiningSteps(candidates, found);
    for (const PlannedStep* step : batch.steps) {
      for (const std::string& name : PackageNamesOf(*step)) {
        if (found.count(name)) batch.missing.insert(name);
      }
    }
    co_return batch;
  }

  // One check of the steps' packages, the intents of the steps that claim a
  // missing one, one install, each claim that is now installed credited; a
  // note either way. False: the host stops.
  static Task<bool> InstallTogether(KindHost& host, const std::vector<const PlannedStep*>& candidates,
                                    BatchWords words) {
    const Batch batch = co_await CheckTogether(host, candidates);
    const std::vector<const PlannedStep*>& steps = batch.steps;
    const std::set<std::string>& missing = batch.missing;
    if (missing.empty() || steps.size() < 2) co_return true;  // one step is its own transaction already
    const std::vector<std::set<std::string>> claims = ClaimMissing(steps, missing);
    size_t claiming = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (claims[i].empty()) continue;
      if (!co_await host.intents().OpenIntentsOwedBy(*steps[i])) co_return false;
      ++claiming;
    }
    if (host.report().Stopping("the packages " + words.installed)) co_return false;
    host.report().Started(words.started + " (" + std::to_string(missing.size()) + " for " + std::to_string(claiming) +
                          " steps)");
    const auto start = host.clock().Monotonic();
    // Named, not a temporary in the co_await: g++ 12 destroys such temporaries twice.
    const PlannedStep install = BatchOf(steps, missing);
    const agent_protocol::ResourceResult installed = co_await host.transport().Call(install, true);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(host.clock().Monotonic() - start).count();
    std::set<std::string> still_missing;
    if (installed.failed) {
      host.report().Note("installing " + std::to_string(missing.size()) + " packages " + words.failed + " failed after " +
                         std::to_string(ms) + " ms (" + installed.error + "); each step installs its own");
      const agent_protocol::ResourceResult after = co_await host.transport().Call(install, false);
      still_missing = after.failed ? missing : MissingIn(after);
    } else {
      host.report().Note(words.installed + " (" + std::to_string(ms) + " ms): " +
                         Join(std::vector<std::string>(missing.begin(), missing.end()), " "));
    }
    Credit(host, steps, claims, still_missing, words);
    co_return true;  // a lost session ends the host at its next step, reported there
  }

  // Each step credited with the names it claimed that are not still missing.
  static void Credit(KindHost& host, const std::vector<const PlannedStep*>& steps,
                     const std::vector<std::set<std::string>>& claims, const std::set<std::string>& still_missing,
                     const BatchWords& words) {
    for (size_t i = 0; i < steps.size(); ++i) {
      std::vector<std::string> credit;
      for (const std::string& name : claims[i]) {
        if (!still_missing.count(name)) credit.push_back(name + words.credit);
      }
      if (!credit.empty()) host.CreditUpFront(*steps[i], std::move(credit));
    }
  }

  // The sources that join, each checked, its intents recorded, applied and
  // credited (KindHost::CreditUpFront). kFailed when one
  // failed: nothing is installed up front then (a note says why); kStop when
  // its intents could not be recorded (the host stops, reported).
  enum class SourcesAdded { kAll, kFailed, kStop };
  static Task<SourcesAdded> AddSources(KindHost& host, const std::vector<const PlannedStep*>& sources) {
    for (const PlannedStep* source : sources) {
      agent_protocol::ResourceResult result = co_await host.transport().Call(*source, false);
      if (!result.failed && result.changed) {
        if (!co_await host.intents().OpenIntentsOwedBy(*source)) co_return SourcesAdded::kStop;
        host.report().Started(source->Identity() + " (up front)");
        result = co_await host.transport().Call(*source, true);
      }
      if (result.failed || host.transport().SessionLost()) {
        host.report().Note("nothing installed up front: " + source->Identity() + " failed (" + result.error +
                  "); each step does its own");
        co_return SourcesAdded::kFailed;
      }
      if (result.changed) {
        std::vector<std::string> credit;
        for (const std::string& difference : result.differences) credit.push_back(difference + " (up front)");
        host.CreditUpFront(*source, std::move(credit));
      }
    }
    co_return SourcesAdded::kAll;
  }
};

const StepKindRegistration kPackageKind(kPackage, std::make_unique<PackageKind>());

}  // namespace
}  // namespace clusterctl
