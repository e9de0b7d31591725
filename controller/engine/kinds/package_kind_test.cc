// Packages installed up front: which steps join (package_up_front.h), and
// the package kind's batch and credit against a recording KindHost.
#include <deque>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <doctest/doctest.h>

#include "common/package_differences.h"
#include "controller/engine/kinds/package_up_front.h"
#include "controller/engine/kinds/step_kind.h"
#include "controller/engine/kinds/recording_kind_host.h"

namespace clusterctl {
namespace {

using agent_protocol::ResourceResult;
using testing::RecordingHost;
using testing::RunTask;

// A host plan built step by step: roles and their steps in run order.
struct PlanBuilder {
  std::deque<Role> roles;
  std::deque<RoleStep> steps;
  HostPlan plan;

  Role& AddRole(const std::string& name) {
    roles.emplace_back().name = name;
    plan.roles.push_back(&roles.back());
    return roles.back();
  }
  PlannedStep& Add(const std::string& kind, nlohmann::json params, const std::string& name = "") {
    RoleStep& step = steps.emplace_back();
    step.name = name.empty() ? "s" + std::to_string(steps.size()) : name;
    step.kind = kind;
    PlannedStep& planned = plan.steps.emplace_back();
    planned.role = &roles.back();
    planned.step = &step;
    planned.kind = kind;
    planned.params = std::move(params);
    return planned;
  }
};

std::vector<std::string> Identities(const std::vector<const PlannedStep*>& steps) {
  std::vector<std::string> ids;
  for (const PlannedStep* s : steps) ids.push_back(s->Identity());
  return ids;
}

bool Always(const PlannedStep&) { return true; }

ResourceResult Missing(std::vector<std::string> names) {
  ResourceResult r;
  for (const std::string& n : names) r.Differs(PackageMissingDifference(n));
  return r;
}

}  // namespace

TEST_CASE("up front: a role's leading package and repository steps join, until a step changes where packages come from") {
  PlanBuilder b;
  b.AddRole("chrony");
  b.Add("package", {{"name", "chrony"}});
  b.Add("file", {{"path", "/etc/chrony/chrony.conf"}});
  b.Add("package", {{"name", "after-a-file"}});  // its role wrote something first
  b.AddRole("munge");
  b.Add("package", {{"name", nlohmann::json::array({"munge", "libmunge2"})}});
  b.Add("package", {{"name", "second-leading"}});
  b.AddRole("pinned");
  b.Add("package", {{"name", "slurmd"}, {"version", "22.05.8-4"}});  // a pinned family keeps its own
  b.AddRole("removal");
  b.Add("package", {{"name", "nscd"}, {"state", "absent"}});
  b.AddRole("skipped-first");
  b.Add("command", {{"argv", {"true"}}}).skipped = true;  // never runs: changes nothing before
  b.Add("package", {{"name", "sudo"}});
  b.AddRole("repo");
  b.Add("repository", {{"name", "nvidia"}});
  b.AddRole("late");
  b.Add("package", {{"name", "from-the-new-repository"}});

  b.AddRole("driver");
  b.Add("assert", {{"argv", {"true"}}});
  b.Add("repository", {{"name", "cuda"}});  // after another step: it does not join, and ends the scan
  b.AddRole("after-driver");
  b.Add("package", {{"name", "too-late"}});

  UpFrontSteps work = UpFrontPackageSteps(b.plan, Always);
  CHECK(Identities(work.packages) ==
        std::vector<std::string>{"chrony/s1", "munge/s4", "munge/s5", "skipped-first/s9", "late/s11"});
  CHECK(Identities(work.sources) == std::vector<std::string>{"repo/s10"});
  // The next scan starts after the role that changed the sources, once it has run.
  REQUIRE(work.next_scan != nullptr);
  CHECK(work.next_scan->name == "after-driver");
  UpFrontSteps after = UpFrontPackageSteps(b.plan, Always, work.next_scan);
  CHECK(Identities(after.packages) == std::vector<std::string>{"after-driver/s14"});
  CHECK(after.next_scan == nullptr);
}

TEST_CASE("package up front: a host installs once per stretch of roles between changes of sources") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", "one"}});
  b.AddRole("b");
  b.Add("package", {{"name", "two"}});
  b.AddRole("driver");
  b.Add("assert", {{"argv", {"true"}}});
  b.Add("repository", {{"name", "cuda"}});
  b.AddRole("c");
  b.Add("package", {{"name", "three"}});
  b.AddRole("d");
  b.Add("package", {{"name", "four"}});
  RecordingHost host;
  host.answers = {Missing({"one", "two"}), ResourceResult{}, Missing({"three", "four"}), ResourceResult{}};
  const StepKind& package = FindStepKind("package");
  for (const Role* role : b.plan.roles) CHECK(RunTask(package.UpFront(host, b.plan, *role)));
  REQUIRE(host.calls.size() == 4);
  CHECK(host.calls[1] == std::pair{nlohmann::json{{"name", {"one", "two"}}}, true});
  CHECK(host.calls[3] == std::pair{nlohmann::json{{"name", {"four", "three"}}}, true});
  CHECK(host.notes.size() == 2);
}

TEST_CASE("up front: a file under /etc/apt is a change of sources; a role waiting for other hosts keeps its order") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", "one"}});
  b.AddRole("waits").waits_for.push_back(RoleWait{"slurm-controller", "controller", "", {}});
  b.Add("package", {{"name", "slurmd"}});
  b.AddRole("pin");
  b.Add("line", {{"path", "/etc/apt/preferences.d/pin"}, {"line", "Pin: release o=site"}});
  b.AddRole("b");
  b.Add("package", {{"name", "two"}});
  CHECK(Identities(UpFrontPackageSteps(b.plan, Always).packages) == std::vector<std::string>{"a/s1"});
}

TEST_CASE("up front: a role whose wait comes before a later step (before:) leads with the packages ahead of it") {
  PlanBuilder b;
  b.AddRole("client").waits_for.push_back(RoleWait{"nfs-server", "nfs_server", "mounted", {}});
  b.Add("package", {{"name", "nfs-common"}});
  b.Add("package", {{"name", "at-the-wait"}}, "mounted");  // the wait comes before it: the lead ends
  b.AddRole("b");
  b.Add("package", {{"name", "two"}});
  CHECK(Identities(UpFrontPackageSteps(b.plan, Always).packages) == std::vector<std::string>{"client/s1", "b/s3"});
}

TEST_CASE("up front: a package another step removes, or a step recorded done, does not join") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", "nscd"}});
  b.AddRole("b");
  b.Add("package", {{"name", "done-before"}});
  b.Add("package", {{"name", "after-a-done-step"}});  // its role's earlier step does not run now
  b.AddRole("c");
  b.Add("package", {{"name", "three"}});
  b.AddRole("d");
  b.Add("package", {{"name", "nscd"}, {"state", "absent"}});
  auto not_done = [](const PlannedStep& s) { return s.Identity() != "b/s2"; };
  CHECK(Identities(UpFrontPackageSteps(b.plan, not_done).packages) == std::vector<std::string>{"c/s4"});
}

TEST_CASE("up front: a missing package is claimed by the first step naming it") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", nlohmann::json::array({"x", "y"})}});
  b.AddRole("b");
  b.Add("package", {{"name", nlohmann::json::array({"y", "z"})}});
  std::vector<const PlannedStep*> steps = {&b.plan.steps[0], &b.plan.steps[1]};
  auto claims = ClaimMissing(steps, {"y", "z"});
  CHECK(claims[0] == std::set<std::string>{"y"});
  CHECK(claims[1] == std::set<std::string>{"z"});
}

TEST_CASE("package up front: one check, the intents of the steps it installs for, one install of what is missing") {
  PlanBuilder b;
  b.AddRole("chrony");
  b.Add("package", {{"name", "chrony"}});
  b.AddRole("probe");
  b.Add("package", {{"name", "hello"}});
  b.AddRole("users");
  b.Add("package", {{"name", "sudo"}});
  RecordingHost host;
  host.answers = {Missing({"chrony", "hello"}), ResourceResult{}};
  const StepKind& package = FindStepKind("package");
  CHECK(RunTask(package.UpFront(host, b.plan, *b.plan.roles.front())));
  REQUIRE(host.calls.size() == 2);
  CHECK(host.calls[0] == std::pair{nlohmann::json{{"name", {"chrony", "hello", "sudo"}}}, false});
  CHECK(host.calls[1] == std::pair{nlohmann::json{{"name", {"chrony", "hello"}}}, true});
  CHECK(host.opened_intents == std::vector<std::string>{"chrony/s1", "probe/s2"});  // recorded before the install
  REQUIRE(host.notes.size() == 1);
  CHECK(host.notes[0].find("installed up front in one transaction") != std::string::npos);

  // Each step that claimed a package is credited with it; sudo was there.
  using Credits = std::map<std::string, std::vector<std::string>>;
  CHECK(host.credits == Credits{{"chrony/s1", {"chrony installed up front (the run's first transaction)"}},
                                {"probe/s2", {"hello installed up front (the run's first transaction)"}}});
}

TEST_CASE("package up front: a failed install fails nothing; what it did install is credited, the rest is not") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", "one"}});
  b.AddRole("b");
  b.Add("package", {{"name", "two"}});
  RecordingHost host;
  ResourceResult failed;
  failed.Fail("apt-get exited with status 100");
  host.answers = {Missing({"one", "two"}), failed, Missing({"one"})};  // two got in before the failure
  const StepKind& package = FindStepKind("package");
  CHECK(RunTask(package.UpFront(host, b.plan, *b.plan.roles.front())));
  REQUIRE(host.notes.size() == 1);
  CHECK(host.notes[0].find("each step installs its own") != std::string::npos);
  REQUIRE(host.calls.size() == 3);
  CHECK(host.calls[2] == std::pair{nlohmann::json{{"name", {"one", "two"}}}, false});  // checked again
  // "one" is left to its step, which installs it itself (its own change).
  using Credits = std::map<std::string, std::vector<std::string>>;
  CHECK(host.credits == Credits{{"b/s2", {"two installed up front (the run's first transaction)"}}});
}

TEST_CASE("package up front: nothing missing, or a single step, sends no install") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", "one"}});
  RecordingHost single;
  CHECK(RunTask(FindStepKind("package").UpFront(single, b.plan, *b.plan.roles.front())));
  CHECK(single.calls.empty());
  b.AddRole("b");
  b.Add("package", {{"name", "two"}});
  RecordingHost nothing_missing;
  nothing_missing.answers = {ResourceResult{}};
  CHECK(RunTask(FindStepKind("package").UpFront(nothing_missing, b.plan, *b.plan.roles.front())));
  CHECK(nothing_missing.calls.size() == 1);
  CHECK(nothing_missing.opened_intents.empty());
}

TEST_CASE("package up front: a leading repository is added first, then credited in its place") {
  PlanBuilder b;
  b.AddRole("a");
  b.Add("package", {{"name", "one"}});
  b.AddRole("grafana");
  b.Add("repository", {{"name", "grafana"}});
  b.Add("package", {{"name", "grafana"}});
  RecordingHost host;
  ResourceResult repo_missing;
  repo_missing.Differs("source file does not exist");
  host.answers = {repo_missing, repo_missing, Missing({"one", "grafana"}), ResourceResult{}};
  CHECK(RunTask(FindStepKind("package").UpFront(host, b.plan, *b.plan.roles.front())));
  REQUIRE(host.calls.size() == 4);
  CHECK(host.calls[0] == std::pair{b.plan.steps[1].params, false});  // the repository checked,
  CHECK(host.calls[1] == std::pair{b.plan.steps[1].params, true});   // added,
  CHECK(host.calls[3] == std::pair{nlohmann::json{{"name", {"grafana", "one"}}}, true});  // then the install
  CHECK(host.opened_intents == std::vector<std::string>{"grafana/s2", "a/s1", "grafana/s3"});
  CHECK(host.credits.at("grafana/s2") == std::vector<std::string>{"source file does not exist (up front)"});
}

TEST_CASE("package up front: a repository that fails up front installs nothing up front") {
  PlanBuilder b;
  b.AddRole("grafana");
  b.Add("repository", {{"name", "grafana"}});
  b.Add("package", {{"name", "grafana"}});
  b.AddRole("b");
  b.Add("package", {{"name", "two"}});
  RecordingHost host;
  ResourceResult failed;
  failed.Fail("the key does not verify");
  host.answers = {failed};
  CHECK(RunTask(FindStepKind("package").UpFront(host, b.plan, *b.plan.roles.front())));
  CHECK(host.calls.size() == 1);
  REQUIRE(host.notes.size() == 1);
  CHECK(host.notes[0].find("nothing installed up front: grafana/s1 failed") != std::string::npos);
}

TEST_CASE("package differences: the missing-package line read back, other lines not") {
  CHECK(MissingPackageOf(PackageMissingDifference("libmunge2")) == "libmunge2");
  CHECK_FALSE(MissingPackageOf("nscd 2.36 installed (to be removed)").has_value());
  CHECK_FALSE(MissingPackageOf("munge not held").has_value());
  CHECK_FALSE(MissingPackageOf(" not installed").has_value());
}

TEST_CASE("run of package steps: the package steps right after each other in a role, from the run's first only") {
  PlanBuilder b;
  b.AddRole("nvidia-driver");
  b.Add("package", {{"name", "leading"}});
  b.Add("file", {{"path", "/etc/apt/preferences.d/pin"}});
  b.Add("package", {{"name", "linux-headers-6.1.0"}});
  b.Add("package", {{"name", "nvidia-kernel-dkms"}}).skipped = true;  // another source's: does not count
  b.Add("package", {{"name", "nvidia-open-550"}, {"version", "550.127.05-1"}});  // pinned: joins
  b.Add("command", {{"argv", {"hold"}}});
  b.Add("package", {{"name", "nvidia-persistenced"}});
  b.AddRole("next");
  b.Add("package", {{"name", "in-another-role"}});
  const PlannedStep& headers = b.plan.steps[2];  // the plan's steps settled: no reference moves now
  CHECK(Identities(PackageRunFrom(b.plan, headers, Always)) ==
        std::vector<std::string>{"nvidia-driver/s3", "nvidia-driver/s5"});
  CHECK(PackageRunFrom(b.plan, b.plan.steps[4], Always).empty());  // continues the run: not its first
  CHECK(PackageRunFrom(b.plan, b.plan.steps[0], Always).empty());  // a file follows: a run of one
  CHECK(PackageRunFrom(b.plan, b.plan.steps[6], Always).empty());  // the role's last; the next role's is not its run
  CHECK(PackageRunFrom(b.plan, b.plan.steps[1], Always).empty());  // not a package step

  // A step recorded done (not sent) ends the run; so does a removal.
  auto not_the_driver = [&](const PlannedStep& s) { return &s != &b.plan.steps[4]; };
  CHECK(PackageRunFrom(b.plan, headers, not_the_driver).empty());
  b.plan.steps[4].params["state"] = "absent";
  CHECK(PackageRunFrom(b.plan, headers, Always).empty());
}

TEST_CASE("run of package steps: a wait of the role or a maintenance step ends the run") {
  PlanBuilder b;
  Role& role = b.AddRole("r");
  b.Add("package", {{"name", "one"}}, "first");
  b.Add("package", {{"name", "two"}}, "second");
  CHECK(PackageRunFrom(b.plan, b.plan.steps[0], Always).size() == 2);
  RoleStep maintenance = *b.plan.steps[1].step;
  maintenance.maintenance = true;
  b.plan.steps[1].step = &maintenance;
  CHECK(PackageRunFrom(b.plan, b.plan.steps[0], Always).empty());
  b.plan.steps[1].step = &b.steps[1];
  role.waits_for.push_back(RoleWait{"other", "controller", "second"});
  CHECK(PackageRunFrom(b.plan, b.plan.steps[0], Always).empty());
}

TEST_CASE("run of package steps: one install with the pinned step's version, each step credited") {
  PlanBuilder b;
  b.AddRole("nvidia-driver");
  b.Add("package", {{"name", "linux-headers-6.1.0"}}, "kernel headers[0]");
  b.Add("package", {{"name", "nvidia-open-550"}, {"version", "550.127.05-1"}}, "driver");
  RecordingHost host;
  host.answers = {Missing({"linux-headers-6.1.0", "nvidia-open-550"}), ResourceResult{}};
  CHECK(RunTask(FindStepKind("package").BeforeStep(host, b.plan, b.plan.steps[0])));
  const nlohmann::json both = {{"name", {"linux-headers-6.1.0", "nvidia-open-550"}},
                               {"versions", {{"nvidia-open-550", "550.127.05-1"}}}};
  REQUIRE(host.calls.size() == 2);
  CHECK(host.calls[0] == std::pair{both, false});  // one check,
  CHECK(host.calls[1] == std::pair{both, true});   // one install, the driver at its version
  CHECK(host.opened_intents == std::vector<std::string>{"nvidia-driver/kernel headers[0]", "nvidia-driver/driver"});
  REQUIRE(host.started.size() == 1);
  CHECK(host.started[0] == "packages in one transaction from nvidia-driver/kernel headers[0] (2 for 2 steps)");
  CHECK(host.credits.at("nvidia-driver/driver") ==
        std::vector<std::string>{"nvidia-open-550 installed in one transaction with the package steps from "
                                 "nvidia-driver/kernel headers[0]"});
  // The driver's own step continues the run: nothing more for it.
  RecordingHost second;
  CHECK(RunTask(FindStepKind("package").BeforeStep(second, b.plan, b.plan.steps[1])));
  CHECK(second.calls.empty());
}

TEST_CASE("run of package steps: a pinned family already installed moves alone, in its place") {
  PlanBuilder b;
  b.AddRole("nvidia-driver");
  b.Add("package", {{"name", "linux-headers-6.1.0"}});
  b.Add("package", {{"name", nlohmann::json::array({"nvidia-open-550", "libcuda1"})}, {"version", "550.144.03-1"}});
  b.Add("package", {{"name", "after-the-driver"}});
  RecordingHost upgrade;  // headers missing; the driver at another version (a rolling upgrade)
  ResourceResult checked = Missing({"linux-headers-6.1.0", "libcuda1", "after-the-driver"});
  checked.Differs("nvidia-open-550 550.127.05-1 -> 550.144.03-1");
  upgrade.answers = {checked};
  CHECK(RunTask(FindStepKind("package").BeforeStep(upgrade, b.plan, b.plan.steps[0])));
  CHECK(upgrade.calls.size() == 1);  // the headers alone are their own transaction: no install here
  CHECK(upgrade.credits.empty());
  CHECK(upgrade.opened_intents.empty());
}

}  // namespace clusterctl
