// Packages installed up front through the real executor (HostRun) on fake
// nodes: one install request per host, each step credited in its place,
// the restarts their changes owe done exactly once, also when the node
// goes away in the middle of the install.
#include <mutex>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "common/package_differences.h"
#include "controller/engine/deploy_harness.h"

namespace clusterctl {
namespace {

using agent_protocol::IncomingRequest;
using agent_protocol::ResourceRequest;
using agent_protocol::ResourceResult;
using testing::DeployHarness;
using testing::FakeNode;
using testing::Interception;
using testing::ReportOf;
using testing::Roles;

// Two roles that start with their packages; a change of the daemon's
// package owes its restart.
const char* kToolsRole = R"(description: tools first
applies_to: [all]
steps:
  - name: packages
    package: {name: [chrony, hello]}
  - name: config
    file: {path: /etc/tools.conf, content: "x\n"}
  - name: late package
    package: {name: after-a-file}
)";
// The end of both daemon roles below: the daemon running, and its restart.
const char* kDaemonServiceAndRestart = R"(  - name: service
    service: {name: daemon, state: running, enabled: true}
handlers:
  - name: restart daemon
    service: {name: daemon, state: restarted}
)";
const std::string kDaemonRole = std::string(R"(description: a daemon from a package
applies_to: [compute]
steps:
  - name: package
    package: {name: [daemon, hello]}
    notify: [restart daemon]
)") + kDaemonServiceAndRestart;

// The names as an install request gives them to apt: name=version where
// the step pins one (`version`) or the batch does (`versions`).
std::vector<std::string> WithVersions(const std::vector<std::string>& names, const nlohmann::json& params) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    std::string version = params.value("version", std::string());
    if (params.contains("versions") && params["versions"].contains(name)) version = params["versions"][name];
    out.push_back(version.empty() ? name : name + "=" + version);
  }
  return out;
}

// A role like nvidia-driver: a file before its packages (not leading), the
// kernel headers, then the driver at a pinned version, whose change owes
// the daemon's restart.
const std::string kDriverRole = std::string(R"(description: a driver after a file
applies_to: [compute]
steps:
  - name: pin
    file: {path: /etc/apt/preferences.d/pin, content: "x\n"}
  - name: headers
    package: {name: linux-headers}
  - name: driver
    package: {name: [driver, driver-utils], version: "2.0-1"}
    notify: [restart daemon]
)") + kDaemonServiceAndRestart;

// A package kind like the agent's: "X not installed" for each missing
// name; applying installs them. Counts the install requests and their names.
// Shared by the nodes, which answer on the fleet's threads: one lock.
struct FakePackages {
  std::mutex mutex;
  std::map<std::string, std::set<std::string>> installed;  // by node
  std::map<std::string, std::vector<std::vector<std::string>>> installs;

  void Attach(FakeNode& node) {
    node.kinds["package"] = [this](FakeNode& n, const ResourceRequest& request) {
      std::lock_guard<std::mutex> lock(mutex);
      ResourceResult r;
      std::vector<std::string> names;
      const nlohmann::json& name = request.params["name"];
      if (name.is_string()) names.push_back(name);
      else for (const auto& each : name) names.push_back(each);
      std::vector<std::string> missing;
      for (const std::string& each : names) {
        if (!installed[n.name].count(each)) missing.push_back(each);
      }
      for (const std::string& each : missing) r.Differs(PackageMissingDifference(each));
      if (request.apply && !missing.empty()) {
        installs[n.name].push_back(WithVersions(missing, request.params));
        installed[n.name].insert(missing.begin(), missing.end());
      }
      return r;
    };
  }
};

int Restarts(DeployHarness& h, const std::string& node) { return h.fleet.node(node).services.at("daemon").restarts; }

// The daemon's older version runs on the compute nodes before the run, so
// its package's change owes a restart (a unit that starts after the change
// would owe none: deploy_run_test.cc).
void DaemonRunsAlready(DeployHarness& h) {
  for (const char* node : {"node02", "node03"}) h.fleet.node(node).services["daemon"].active = true;
}

std::vector<std::string> StepsWithStatus(DeployHarness& h, const std::string& host, const std::string& status) {
  std::vector<std::string> steps;
  for (const auto& e : h.Events("step")) {
    if (e["host"] == host && e["status"] == status) steps.push_back(e["step"]);
  }
  return steps;
}

}  // namespace

TEST_CASE("packages up front: one install per host; each leading step credited in its place; its restart done once") {
  DeployHarness h(Roles{{"tools", kToolsRole}, {"daemon", kDaemonRole}});
  FakePackages packages;
  for (const char* node : {"node01", "node02", "node03"}) packages.Attach(h.fleet.node(node));
  DaemonRunsAlready(h);
  DeploymentResult first = h.Deploy();
  REQUIRE(first.converged());
  // node02: the leading steps' packages in one request, then the late one alone.
  CHECK(packages.installs["node02"] ==
        std::vector<std::vector<std::string>>{{"chrony", "daemon", "hello"}, {"after-a-file"}});
  // node01 runs only tools: its one leading step is its own transaction.
  CHECK(packages.installs["node01"] == std::vector<std::vector<std::string>>{{"chrony", "hello"}, {"after-a-file"}});
  const auto changed = StepsWithStatus(h, "node02", "changed");
  CHECK(std::count(changed.begin(), changed.end(), "tools/packages") == 1);
  CHECK(std::count(changed.begin(), changed.end(), "daemon/package") == 1);
  CHECK(Restarts(h, "node02") == 1);
  CHECK(h.OpenIntents().empty());
  bool noted = false;
  for (const auto& e : h.Events("note")) {
    noted = noted || (e["host"] == "node02" && e["message"].get<std::string>().find("installed up front") != std::string::npos);
  }
  CHECK(noted);

  DeploymentResult again = h.Deploy();
  CHECK(again.changed == 0);
  CHECK(Restarts(h, "node02") == 1);
}

TEST_CASE("packages up front: the node lost in the middle of the install; the next run restarts the daemon once") {
  DeployHarness h(Roles{{"tools", kToolsRole}, {"daemon", kDaemonRole}});
  FakePackages packages;
  for (const char* node : {"node01", "node02", "node03"}) packages.Attach(h.fleet.node(node));
  DaemonRunsAlready(h);
  // node02 installs, but its answer is lost: the controller's end of a kill -9.
  h.fleet.node("node02").intercept = [](const IncomingRequest& in) -> Interception {
    auto* r = std::get_if<ResourceRequest>(&in.request);
    if (r && r->kind == "package" && r->apply && r->params["name"].size() == 3) {
      return testing::LoseReply{Status::Unavailable("connection reset by peer")};
    }
    return {};
  };
  DeploymentResult cut = h.Deploy();
  CHECK(ReportOf(cut, "node02").outcome == HostOutcome::kUnreachable);
  CHECK(packages.installed["node02"].count("daemon") == 1);  // the node did install
  REQUIRE(h.OpenIntents().size() == 1);                     // the restart was owed before it
  h.fleet.node("node02").intercept = nullptr;

  DeploymentResult resumed = h.Deploy();
  REQUIRE(resumed.converged());
  CHECK(Restarts(h, "node02") == 1);
  CHECK(h.OpenIntents().empty());
  CHECK(h.Deploy().changed == 0);
}

TEST_CASE("a run of package steps (headers, pinned driver): one install at the pinned version, each step credited") {
  DeployHarness h(Roles{{"driver", kDriverRole}});
  FakePackages packages;
  for (const char* node : {"node01", "node02", "node03"}) packages.Attach(h.fleet.node(node));
  DaemonRunsAlready(h);
  DeploymentResult first = h.Deploy();
  REQUIRE(first.converged());
  CHECK(packages.installs["node02"] ==
        std::vector<std::vector<std::string>>{{"driver=2.0-1", "driver-utils=2.0-1", "linux-headers"}});
  const auto changed = StepsWithStatus(h, "node02", "changed");
  CHECK(std::count(changed.begin(), changed.end(), "driver/headers") == 1);
  CHECK(std::count(changed.begin(), changed.end(), "driver/driver") == 1);
  CHECK(Restarts(h, "node02") == 1);
  CHECK(h.OpenIntents().empty());
  CHECK(h.Deploy().changed == 0);
  CHECK(Restarts(h, "node02") == 1);
}

TEST_CASE("plan predicts the steps a deploy with packages up front changes") {
  DeployHarness h(Roles{{"tools", kToolsRole}, {"daemon", kDaemonRole}});
  FakePackages packages;
  for (const char* node : {"node01", "node02", "node03"}) packages.Attach(h.fleet.node(node));
  DaemonRunsAlready(h);
  DeploymentOptions plan;
  plan.check = true;
  REQUIRE(h.Deploy(plan).converged());
  CHECK(packages.installs.empty());
  const auto predicted = StepsWithStatus(h, "node02", "would-change");
  REQUIRE(h.Deploy().converged());
  const auto changed = StepsWithStatus(h, "node02", "changed");
  CHECK(predicted == changed);
}

}  // namespace clusterctl
