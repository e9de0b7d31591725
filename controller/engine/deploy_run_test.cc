// RunDeployment and the executor on a fleet of fake nodes (fake_fleet.h),
// with a real state store in a temporary directory: intents and exactly-once
// restarts across simulated crashes, failures that stay with their host,
// reboots that wait for a new boot id, and hostile replies that fail their
// host without hanging the others.
#include "controller/engine/deploy_run.h"

#include <atomic>
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>

#include "common/json_text.h"
#include "controller/engine/deploy_harness.h"
#include "controller/engine/fake_fleet.h"
#include "controller/state/test_util.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

using namespace std::chrono_literals;
using agent_protocol::Frame;
using agent_protocol::IncomingRequest;
using agent_protocol::ResourceRequest;
using testing::DeployHarness;
using testing::FakeFleet;
using testing::ReportOf;
using testing::Roles;
using testing::Interception;

const char* const kInventory = testing::kThreeNodeInventory;

// A config file whose change restarts the service that reads it.
const char* kWebRole = R"(description: a config file and the service that reads it
applies_to: [all]
vars:
  web_port: 80
steps:
  - name: config
    file: {path: /etc/web.conf, content: "port={{web_port}}\n"}
    notify: [restart web]
  - name: service
    service: {name: web, state: running, enabled: true}
handlers:
  - name: restart web
    service: {name: web, state: restarted}
)";

const char* kKernelRole = R"(description: a boot setting that needs a reboot
applies_to: [compute]
steps:
  - name: cmdline
    file: {path: /etc/default/grub.d/iommu.cfg, content: "iommu=pt\n"}
  - name: reboot
    reboot: {reason: the new kernel command line}
)";

// `second` on the compute nodes waits for `first` on the controller.
const char* kFirstRole = R"(description: done on the controller first
applies_to: [controller]
steps:
  - name: setup
    command: {argv: [setup-controller]}
)";
const char* kSecondRole = R"(description: waits for first on the controller
applies_to: [compute]
waits_for:
  - {role: first, group: controller}
steps:
  - name: join
    command: {argv: [join-controller]}
)";

bool IsRestart(const IncomingRequest& in, bool apply) {
  auto* r = std::get_if<ResourceRequest>(&in.request);
  return r && r->kind == "service" && r->params.value("state", "") == "restarted" && r->apply == apply;
}

bool IsFileApply(const IncomingRequest& in) {
  auto* r = std::get_if<ResourceRequest>(&in.request);
  return r && r->kind == "file" && r->apply;
}

int Restarts(FakeFleet& fleet, const std::string& node) { return fleet.node(node).services.at("web").restarts; }

// Whether `host`'s report has `identity` with `status` and exactly `why` as its differences.
bool Reported(const DeploymentResult& result, const std::string& host, const std::string& identity, StepStatus status,
              const std::string& why) {
  for (const StepReport& s : ReportOf(result, host).steps) {
    if (s.identity == identity && s.status == status && s.differences == std::vector<std::string>{why}) return true;
  }
  return false;
}

std::string WithPort(int port) {
  return std::string(kInventory) + "vars:\n  web_port: " + std::to_string(port) + "\n";
}

}  // namespace

TEST_CASE("a first deploy converges every host; a re-run contacts no node and changes nothing") {
  DeployHarness h(Roles{{"web", kWebRole}});
  DeploymentResult first = h.Deploy();
  REQUIRE(first.converged());
  CHECK(first.changed == 6);  // config and service on 3 hosts; web started after its config owes no restart
  CHECK(h.fleet.node("node02").files.at("/etc/web.conf") == "port=80\n");
  CHECK(h.fleet.node("node02").services.at("web").active);
  CHECK(h.Events("recap").size() == 1);
  CHECK(h.events->events().front()["event"] == "run_started");
  CHECK(h.events->events().back()["event"] == "recap");

  const int opens = h.fleet.node("node01").opens;
  DeploymentResult again = h.Deploy();
  REQUIRE(again.converged());
  CHECK(again.changed == 0);
  CHECK(h.fleet.node("node01").opens == opens);
  for (const HostReport& r : again.hosts) CHECK_FALSE(r.contacted);
}

// web, then a drop-in written while the unit runs: it owes a restart again.
std::string WebWithLateDropIn() {
  std::string role = kWebRole;
  role.insert(role.find("handlers:"), R"(  - name: drop-in
    file: {path: /etc/web.d/late.conf, content: "late=1\n"}
    notify: [restart web]
)");
  return role;
}

TEST_CASE("a unit that starts after the change that owed its restart is not restarted; plan still shows the restart") {
  DeployHarness h(Roles{{"web", kWebRole}});
  DeploymentOptions plan;
  plan.check = true;
  DeploymentResult planned = h.Deploy(plan);
  bool plan_restarts = false;
  for (const StepReport& s : ReportOf(planned, "node02").steps) {
    plan_restarts = plan_restarts || (s.identity == "web/restart web" && s.status == StepStatus::kWouldChange);
  }
  CHECK(plan_restarts);  // plan cannot know what starts the unit first (a package's maintainer script may)
  DeploymentResult first = h.Deploy();
  REQUIRE(first.converged());
  for (const char* node : {"node01", "node02", "node03"}) {
    CHECK(h.fleet.node(node).services.at("web").active);
    CHECK(Restarts(h.fleet, node) == 0);  // started once, by the service step, after the config was written
  }
  CHECK(Reported(first, "node02", "web/restart web", StepStatus::kOk, "not needed: started since the change that owed it"));
  CHECK(h.OpenIntents().empty());
}

TEST_CASE("a change made while the unit runs owes the restart again, though the unit started after an earlier one") {
  DeployHarness h(Roles{{"web", WebWithLateDropIn()}});
  DeploymentResult first = h.Deploy();
  REQUIRE(first.converged());
  for (const char* node : {"node01", "node02", "node03"}) CHECK(Restarts(h.fleet, node) == 1);
  CHECK(h.OpenIntents().empty());
}

TEST_CASE("a unit that runs before the change is restarted after it, once") {
  DeployHarness h(Roles{{"web", kWebRole}});
  h.fleet.node("node02").services["web"].active = true;  // installed and started before this run (its package)
  REQUIRE(h.Deploy().converged());
  CHECK(Restarts(h.fleet, "node02") == 1);
  CHECK(Restarts(h.fleet, "node01") == 0);
}

TEST_CASE("a changed file owes its restart, recorded before the change, and the restart runs once") {
  DeployHarness h(Roles{{"web", kWebRole}});
  REQUIRE(h.Deploy().converged());
  REQUIRE(Restarts(h.fleet, "node02") == 0);
  h.SetInventory(WithPort(8080));
  DeploymentResult changed = h.Deploy();
  REQUIRE(changed.converged());
  for (const char* node : {"node01", "node02", "node03"}) CHECK(Restarts(h.fleet, node) == 1);
  CHECK(h.Events("intent_opened").size() == 3);
  CHECK(h.Events("intent_closed").size() == 3);
  CHECK(h.OpenIntents().empty());
  // The intent is opened after the check and before the apply of the change.
  std::vector<std::string> order;
  for (const auto& e : h.events->events()) {
    if (e.value("host", "") != "node02") continue;
    if (e["event"] == "intent_opened" || (e["event"] == "step" && e["step"] == "web/config")) order.push_back(e["event"]);
  }
  CHECK(order == std::vector<std::string>{"intent_opened", "step"});
}

TEST_CASE("a crash before the restart leaves it owed; the next run restarts exactly once") {
  DeployHarness h(Roles{{"web", kWebRole}});
  REQUIRE(h.Deploy().converged());
  h.SetInventory(WithPort(8080));
  // node02 goes away when its restart is about to be checked (after the
  // change; the check before it records the unit's invocation).
  bool changed = false;
  h.fleet.node("node02").intercept = [&changed](const IncomingRequest& in) -> Interception {
    changed = changed || IsFileApply(in);
    if (changed && IsRestart(in, false)) return Status::Unavailable("connection reset by peer");
    return {};
  };
  DeploymentResult cut = h.Deploy();
  CHECK(ReportOf(cut, "node02").outcome == HostOutcome::kUnreachable);
  CHECK(ReportOf(cut, "node01").outcome == HostOutcome::kOk);
  CHECK(h.fleet.node("node02").files.at("/etc/web.conf") == "port=8080\n");
  CHECK(Restarts(h.fleet, "node02") == 0);  // the first deploy started web after its config: no restart
  std::vector<Intent> owed = h.OpenIntents();
  REQUIRE(owed.size() == 1);
  CHECK(owed[0].host == "node02");
  CHECK(owed[0].target == "web/restart web");

  h.fleet.node("node02").intercept = nullptr;
  DeploymentResult resumed = h.Deploy();
  REQUIRE(resumed.converged());
  CHECK(Restarts(h.fleet, "node02") == 1);
  CHECK(Restarts(h.fleet, "node01") == 1);  // restarted by the cut run, not again
  CHECK(h.OpenIntents().empty());
  REQUIRE(h.Deploy().converged());
  CHECK(Restarts(h.fleet, "node02") == 1);
}

TEST_CASE("a crash after the restart but before its answer: the next run sees it done and does not restart again") {
  DeployHarness h(Roles{{"web", kWebRole}});
  REQUIRE(h.Deploy().converged());
  h.SetInventory(WithPort(8080));
  CancelToken crash;
  h.fleet.node("node03").intercept = [&crash](const IncomingRequest& in) -> Interception {
    if (!IsRestart(in, true)) return {};
    crash.Cancel(0ms);  // the controller dies: nothing after this point happens
    return testing::LoseReply{Status::Cancelled("the controller was killed")};
  };
  DeploymentResult killed = h.Deploy({}, &crash);
  CHECK(killed.stopped);
  CHECK(ReportOf(killed, "node03").outcome == HostOutcome::kStopped);
  CHECK(Restarts(h.fleet, "node03") == 1);
  REQUIRE(h.OpenIntents().size() >= 1);

  h.fleet.node("node03").intercept = nullptr;
  DeploymentResult resumed = h.Deploy();
  REQUIRE(resumed.converged());
  CHECK(Restarts(h.fleet, "node03") == 1);
  CHECK(Reported(resumed, "node03", "web/restart web", StepStatus::kOk, "not needed: started since the change that owed it"));
  CHECK(h.OpenIntents().empty());
}

TEST_CASE("a restart still starting when the next run looks is waited for, not done again") {
  DeployHarness h(Roles{{"web", kWebRole}});
  REQUIRE(h.Deploy().converged());
  h.SetInventory(WithPort(8080));
  CancelToken crash;
  h.fleet.node("node03").intercept = [&](const IncomingRequest& in) -> Interception {
    if (!IsRestart(in, true)) return {};
    crash.Cancel(0ms);
    return testing::LoseReply{Status::Cancelled("the controller was killed")};
  };
  DeploymentResult killed = h.Deploy({}, &crash);
  REQUIRE(killed.stopped);
  REQUIRE(Restarts(h.fleet, "node03") == 1);
  // The interrupted restart is still in flight: the unit is activating.
  h.fleet.node("node03").services.at("web").activating_looks = 3;
  h.fleet.node("node03").intercept = nullptr;
  DeploymentResult resumed = h.Deploy();
  REQUIRE(resumed.converged());
  CHECK(Restarts(h.fleet, "node03") == 1);
  CHECK(h.fleet.node("node03").services.at("web").activating_looks == 0);
  CHECK(h.OpenIntents().empty());
}

TEST_CASE("a failing step fails its host only, with the agent's message") {
  DeployHarness h(Roles{{"web", kWebRole}});
  h.fleet.node("node02").intercept = [](const IncomingRequest& in) -> Interception {
    if (!IsFileApply(in)) return {};
    agent_protocol::ResourceResult failed;
    failed.Fail("write /etc/web.conf: No space left on device");
    failed.failed_command = "write /etc/web.conf";
    return agent_protocol::EncodeResourceReply(in.id, failed);
  };
  DeploymentResult result = h.Deploy();
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kFailed);
  CHECK(ReportOf(result, "node02").error == "web/config: write /etc/web.conf: No space left on device");
  CHECK(ReportOf(result, "node01").outcome == HostOutcome::kOk);
  CHECK(ReportOf(result, "node03").outcome == HostOutcome::kOk);
  CHECK_FALSE(h.fleet.node("node02").files.count("/etc/web.conf"));
  CHECK(h.fleet.node("node03").services.at("web").active);
}

TEST_CASE("a secret a node echoes in a failure is masked before it is shown or stored") {
  const char* role = R"(description: feeds a secret to a tool that quotes it when it fails
applies_to: [controller]
secrets:
  db_password: {password: 32}
steps:
  - name: grants
    command: {argv: [sh, -c, "mariadb < /etc/grants.sql"]}
)";
  DeployHarness h(Roles{{"db", role}});
  std::string echoed;  // what the failing tool prints: the password, read where the vault keeps it
  h.fleet.node("node01").intercept = [&](const IncomingRequest& in) -> Interception {
    auto* r = std::get_if<ResourceRequest>(&in.request);
    if (!r || !r->apply) return {};
    std::ifstream key(h.state_dir() + "/secrets/db_password");
    std::getline(key, echoed);
    agent_protocol::ResourceResult failed;
    failed.Fail("sh exited with status 1");
    failed.output = "ERROR 1064 (42000) near 'IDENTIFIED BY '" + echoed + "'' at line 3\n";
    return agent_protocol::EncodeResourceReply(in.id, failed);
  };
  DeploymentResult result = h.Deploy();
  REQUIRE(echoed.size() == 32);
  const HostReport& node = ReportOf(result, "node01");
  REQUIRE(node.outcome == HostOutcome::kFailed);
  bool masked = false;
  for (const StepReport& s : node.steps) masked = masked || s.output.find("IDENTIFIED BY '[secret db_password]'") != std::string::npos;
  CHECK(masked);
  for (const auto& event : h.events->events()) CHECK(JsonText(event).find(echoed) == std::string::npos);
}

TEST_CASE("a secret the state knows that is gone stops the deploy before any node; --rotate-secret replaces it") {
  const char* role = R"(description: a cluster key on every node
applies_to: [all]
secrets:
  cluster_key: {bytes: 64}
steps:
  - name: key
    file: {path: /etc/cluster.key, secret_content: cluster_key, mode: "0400"}
)";
  DeployHarness h(Roles{{"key", role}});
  REQUIRE(h.Deploy().converged());
  const std::string first_key = h.fleet.node("node02").files.at("/etc/cluster.key");
  std::filesystem::remove(h.state_dir() + "/secrets/cluster_key");
  const int opens = h.fleet.node("node02").opens;
  DeploymentResult refused = h.Deploy();
  CHECK(refused.ending == DeploymentResult::Ending::kFailed);
  CHECK(refused.error.find("secret cluster_key was generated by an earlier deploy") != std::string::npos);
  CHECK(h.fleet.node("node02").opens == opens);
  CHECK(h.fleet.node("node02").files.at("/etc/cluster.key") == first_key);
  CHECK_FALSE(std::filesystem::exists(h.state_dir() + "/secrets/cluster_key"));

  DeploymentOptions rotate;
  rotate.rotate_secrets = {"cluster_key"};
  REQUIRE(h.Deploy(rotate).converged());
  const std::string second_key = h.fleet.node("node02").files.at("/etc/cluster.key");
  CHECK(second_key.size() == 64);
  CHECK(second_key != first_key);
  CHECK(h.fleet.node("node01").files.at("/etc/cluster.key") == second_key);
  REQUIRE(h.Deploy().converged());  // the new one is kept
  CHECK(h.fleet.node("node03").files.at("/etc/cluster.key") == second_key);
}

TEST_CASE("a reboot waits for a new boot id, through the old boot and refused connections") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  for (const char* node : {"node02", "node03"}) {
    h.fleet.node(node).stale_opens_after_reboot = 1;
    h.fleet.node(node).down_after_reboot = 2;
  }
  DeploymentResult result = h.Deploy();
  REQUIRE(result.converged());
  CHECK(h.fleet.node("node02").reboots == 1);
  CHECK(h.fleet.node("node02").boot_id == "boot-2");
  // The first session, the one that still saw boot-1, two refused, the one that saw boot-2.
  CHECK(h.fleet.node("node02").opens == 5);
  CHECK(Reported(result, "node02", "kernel/reboot", StepStatus::kChanged, "rebooted (boot id boot-1 -> boot-2)"));
  CHECK(h.OpenIntents().empty());
  CHECK(h.fleet.node("node01").reboots == 0);  // not a compute node

  REQUIRE(h.Deploy().converged());
  CHECK(h.fleet.node("node02").reboots == 1);  // nothing owed, no second reboot
}

// A reboot that follows only the driver: the helper file changing owes none.
const char* kDriverRole = R"(description: a driver whose change needs a reboot
applies_to: [compute]
steps:
  - name: helper
    file: {path: /usr/local/lib/helper, content: "{{helper_text}}"}
  - name: driver
    file: {path: /etc/driver.version, content: "{{driver_version}}"}
  - name: reboot
    reboot: {reason: load the new driver, after: [driver]}
vars:
  helper_text: "v1"
  driver_version: "1"
)";

TEST_CASE("a reboot with `after` follows only the steps it names") {
  DeployHarness h(Roles{{"driver", kDriverRole}});
  REQUIRE(h.Deploy().converged());
  CHECK(h.fleet.node("node02").reboots == 1);  // first install: the driver changed

  h.SetInventory(std::string(kInventory) + "vars: {helper_text: v2}\n");
  REQUIRE(h.Deploy().converged());
  CHECK(h.fleet.node("node02").files.at("/usr/local/lib/helper") == "v2");
  CHECK(h.fleet.node("node02").reboots == 1);  // the helper changed, not the driver

  h.SetInventory(std::string(kInventory) + "vars: {helper_text: v2, driver_version: '2'}\n");
  REQUIRE(h.Deploy().converged());
  CHECK(h.fleet.node("node02").reboots == 2);
  CHECK(h.OpenIntents().empty());
}

// What holds only after the reboot: plan cannot check it before.
const char* kLoadedRole = R"(description: a driver checked once loaded
applies_to: [compute]
steps:
  - name: driver
    file: {path: /etc/driver.version, content: "1"}
  - name: reboot
    reboot: {reason: load the driver}
  - name: driver loaded
    assert: {argv: ["true"], message: the driver is not loaded}
)";

TEST_CASE("plan reports an assert after a reboot it would make as checked after the reboot, not as failed") {
  DeployHarness h(Roles{{"driver", kLoadedRole}});
  for (const char* node : {"node02", "node03"}) h.fleet.node(node).asserts_need_reboot = true;
  DeploymentOptions plan;
  plan.check = true;
  DeploymentResult planned = h.Deploy(plan);
  CHECK(ReportOf(planned, "node02").outcome == HostOutcome::kOk);
  bool deferred = false;
  for (const StepReport& s : ReportOf(planned, "node02").steps) {
    deferred = deferred || (s.identity == "driver/driver loaded" && s.status == StepStatus::kSkipped &&
                            s.differences == std::vector<std::string>{"checked after the reboot"});
  }
  CHECK(deferred);
  CHECK(h.fleet.node("node02").reboots == 0);

  REQUIRE(h.Deploy().converged());  // the deploy checks it, after its reboot
  CHECK(h.fleet.node("node02").reboots == 1);
  REQUIRE(h.Deploy(plan).converged());  // nothing owed: plan checks it now
}

// A precondition guarding a change that depends on a variable.
const char* kGuardedRole = R"(description: a change behind a precondition
applies_to: [compute]
vars:
  wanted: "1"
steps:
  - name: kernel fits
    assert: {argv: ["true"], message: the next kernel cannot take the driver}
  - name: driver
    file: {path: /etc/driver.version, content: "{{wanted}}"}
)";

TEST_CASE("an assert is checked again whenever its host is contacted, though recorded as holding") {
  DeployHarness h(Roles{{"guarded", kGuardedRole}});
  REQUIRE(h.Deploy().converged());
  h.fleet.node("node02").asserts_fail = true;  // e.g. a kernel without headers installed by hand
  REQUIRE(h.Deploy().converged());             // nothing to change: the host is not contacted
  h.SetInventory(std::string(kInventory) + "vars: {wanted: '2'}\n");
  DeploymentResult result = h.Deploy();
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kFailed);
  CHECK(ReportOf(result, "node02").error.find("the next kernel cannot take the driver") != std::string::npos);
  CHECK(h.fleet.node("node02").files.at("/etc/driver.version") == "1");  // refused before the change
  CHECK(h.fleet.node("node03").files.at("/etc/driver.version") == "2");
}

TEST_CASE("plan reports an assert after a change of its role as checked after it; with nothing before it, plan checks it") {
  DeployHarness h(Roles{{"guarded", R"(description: a precondition after a repository
applies_to: [compute]
steps:
  - name: repository
    file: {path: /etc/apt/sources.list.d/x.list, content: "deb x"}
  - name: headers available
    assert: {argv: ["true"], message: no headers in the repositories}
)"}});
  h.fleet.node("node02").asserts_fail = true;  // until the repository is there (plan does not add it)
  DeploymentOptions plan;
  plan.check = true;
  DeploymentResult planned = h.Deploy(plan);
  CHECK(ReportOf(planned, "node02").outcome == HostOutcome::kOk);
  bool deferred = false;
  for (const StepReport& s : ReportOf(planned, "node02").steps) {
    deferred = deferred || (s.identity == "guarded/headers available" && s.status == StepStatus::kSkipped &&
                            s.differences == std::vector<std::string>{"checked after the role's earlier changes"});
  }
  CHECK(deferred);
  h.fleet.node("node02").asserts_fail = false;
  REQUIRE(h.Deploy().converged());
  h.fleet.node("node02").asserts_fail = true;  // now nothing comes before it: plan checks it and says so
  plan.verify = true;                          // (a host with nothing to change is not contacted otherwise)
  const DeploymentResult verified = h.Deploy(plan);
  CHECK(ReportOf(verified, "node02").outcome == HostOutcome::kFailed);
}

TEST_CASE("a reboot that never comes back fails its host after the step's timeout; the reboot stays owed") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  h.fleet.node("node03").down_after_reboot = 1000000;
  DeploymentOptions options;
  options.execution.reboot_timeout = 1s;
  DeploymentResult result = h.Deploy(options);
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kOk);
  CHECK(ReportOf(result, "node03").outcome == HostOutcome::kUnreachable);
  CHECK(ReportOf(result, "node03").error.find("did not come back from the reboot within 1 s") != std::string::npos);
  std::vector<Intent> owed = h.OpenIntents();
  REQUIRE(owed.size() == 1);
  CHECK(owed[0].kind == "reboot");
}

TEST_CASE("a run after one that asked for a reboot waits for the node to come back instead of calling it unreachable") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  h.fleet.node("node02").down_after_reboot = 5;  // still down when the next run starts
  DeploymentOptions gave_up;
  gave_up.execution.reboot_timeout = 0s;  // the first run ends (as if killed) right after asking
  DeploymentResult first = h.Deploy(gave_up);
  REQUIRE(ReportOf(first, "node02").outcome == HostOutcome::kUnreachable);
  DeploymentResult resumed = h.Deploy();
  CHECK(ReportOf(resumed, "node02").outcome == HostOutcome::kOk);
  CHECK(h.fleet.node("node02").reboots == 1);  // the reboot it asked for, not a second one
  CHECK(h.OpenIntents().empty());
}

TEST_CASE("a malformed or throwing reply fails that host with a message, and hosts waiting on it do not hang") {
  struct Case {
    const char* name;
    std::function<Interception(const IncomingRequest&)> reply;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"an error for an unreadable frame, with a null id",
       [](const IncomingRequest&) -> Interception {
         return agent_protocol::EncodeError(nullptr, agent_protocol::kBadFrame, "frame header is not a JSON object");
       },
       "agent: frame header is not a JSON object"},
      {"a result without its outcome",
       [](const IncomingRequest& in) -> Interception {
         return Frame{{{"type", "result"}, {"id", in.id}}, ""};
       },
       "malformed resource reply: 'outcome' is missing"},
      {"an outcome of the wrong types",
       [](const IncomingRequest& in) -> Interception {
         return Frame{{{"type", "result"}, {"id", in.id}, {"outcome", {{"changed", "yes"}}}}, ""};
       },
       "'changed' is string, not true or false"},
      {"a reply of an unknown type",
       [](const IncomingRequest& in) -> Interception {
         return Frame{{{"type", "surprise"}, {"id", in.id}}, ""};
       },
       "unexpected resource reply type 'surprise'"},
      {"a reply nested deeper than the protocol allows",
       [](const IncomingRequest& in) -> Interception {
         nlohmann::json deep = nlohmann::json::array();
         for (int i = 0; i < 100; ++i) deep = nlohmann::json::array({deep});
         return Frame{{{"type", "result"}, {"id", in.id}, {"outcome", {{"extra", {{"x", deep}}}}}}, ""};
       },
       "nests deeper than 64 levels"},
      {"an exception while the reply is read",
       [](const IncomingRequest&) -> Interception { throw std::runtime_error("decoder exploded"); },
       "internal error: decoder exploded"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    DeployHarness h(Roles{{"first", kFirstRole}, {"second", kSecondRole}});
    h.fleet.node("node01").intercept = [&](const IncomingRequest& in) -> Interception {
      if (std::holds_alternative<ResourceRequest>(in.request)) return c.reply(in);
      return {};
    };
    DeploymentResult result = h.Deploy();
    const HostReport& controller = ReportOf(result, "node01");
    CHECK(controller.outcome == HostOutcome::kFailed);
    CHECK_MESSAGE(controller.error.find(c.message) != std::string::npos, controller.error);
    for (const char* node : {"node02", "node03"}) {
      const HostReport& waiter = ReportOf(result, node);
      CHECK(waiter.outcome == HostOutcome::kFailed);
      CHECK_MESSAGE(waiter.error.find("role first failed on node01") != std::string::npos, waiter.error);
      CHECK(h.fleet.node(node).applied.empty());  // never joined a controller that is not set up
    }
  }
}

TEST_CASE("a wait with before: runs the role's steps ahead of the named one, and waits there") {
  const char* waits_before_join = R"(description: prepares, then waits for first on the controller before it joins
applies_to: [compute]
waits_for:
  - {role: first, group: controller, before: join}
steps:
  - name: prepare
    command: {argv: [prepare-node]}
  - name: join
    command: {argv: [join-controller]}
)";
  DeployHarness h(Roles{{"first", kFirstRole}, {"second", waits_before_join}});
  h.fleet.node("node01").intercept = [](const IncomingRequest& in) -> Interception {
    if (!std::holds_alternative<ResourceRequest>(in.request)) return {};
    agent_protocol::ResourceResult failed;
    failed.Fail("setup-controller: exit 1");
    return agent_protocol::EncodeResourceReply(in.id, failed);
  };
  DeploymentResult result = h.Deploy();
  CHECK(ReportOf(result, "node01").outcome == HostOutcome::kFailed);
  for (const char* node : {"node02", "node03"}) {
    const HostReport& waiter = ReportOf(result, node);
    CHECK(waiter.outcome == HostOutcome::kFailed);
    CHECK_MESSAGE(waiter.error.find("second/(waits for first)") != std::string::npos, waiter.error);
    CHECK_MESSAGE(waiter.error.find("role first failed on node01") != std::string::npos, waiter.error);
    CHECK(h.fleet.node(node).applied.size() == 1);  // prepare ran; join never did
  }
}

TEST_CASE("a stop before the run starts nothing; a stop mid-run starts no new step and keeps what is owed") {
  DeployHarness h(Roles{{"web", kWebRole}});
  CancelToken before;
  before.Cancel(0ms);
  DeploymentResult none = h.Deploy({}, &before);
  CHECK(none.stopped);
  for (const HostReport& r : none.hosts) CHECK(r.outcome == HostOutcome::kStopped);
  CHECK(h.fleet.node("node01").opens == 0);

  REQUIRE(h.Deploy().converged());
  h.SetInventory(WithPort(9090));
  CancelToken stop;
  // The stop comes while node01's config is being written: that step ends,
  // its restart stays owed, nothing else starts on node01.
  h.fleet.node("node01").intercept = [&stop](const IncomingRequest& in) -> Interception {
    if (IsFileApply(in)) stop.Cancel(10s);
    return {};
  };
  h.fleet.node("node02").unreachable = true;
  h.fleet.node("node03").unreachable = true;
  DeploymentResult stopped = h.Deploy({}, &stop);
  CHECK(stopped.stopped);
  CHECK(ReportOf(stopped, "node01").outcome == HostOutcome::kStopped);
  CHECK(h.fleet.node("node01").files.at("/etc/web.conf") == "port=9090\n");
  CHECK(Restarts(h.fleet, "node01") == 0);  // the first deploy started web after its config: none
  bool owed_on_node01 = false;
  for (const Intent& i : h.OpenIntents()) owed_on_node01 = owed_on_node01 || (i.host == "node01" && i.target == "web/restart web");
  CHECK(owed_on_node01);
  CHECK(h.Events("recap").back()["stopped"] == true);
}

TEST_CASE("a role's own when picks the hosts from their facts; hosts without it do not run it and do not hold up waiters") {
  // `fabric` applies to every host but only runs where the facts show an adapter;
  // `storage` waits for it on the compute nodes, node02 has none.
  const char* fabric = R"(description: only where there is an adapter
applies_to: [all]
when: facts.pci.hca_count > 0
steps:
  - name: stack
    command: {argv: [install-stack]}
)";
  const char* storage = R"(description: waits for the fabric on the compute nodes
applies_to: [controller]
waits_for:
  - {role: fabric, group: compute}
steps:
  - name: export
    command: {argv: [export]}
)";
  DeployHarness h(Roles{{"fabric", fabric}, {"storage", storage}});
  h.fleet.node("node03").facts["pci"]["hca_count"] = 1;
  DeploymentResult result = h.Deploy();
  REQUIRE(result.converged());
  CHECK(h.fleet.node("node03").applied.size() == 1);
  CHECK(h.fleet.node("node02").applied.empty());
  CHECK(h.fleet.node("node01").applied.size() == 1);  // storage ran; fabric did not
  for (const auto& step : ReportOf(result, "node02").steps) CHECK(step.identity.rfind("fabric/", 0) != 0);

  // A `when` that cannot be evaluated is a planning error naming the role and host.
  const char* broken = R"(description: a typo in when
applies_to: [compute]
when: facts.pci.hca_cuont > 0
steps:
  - name: stack
    command: {argv: [install-stack]}
)";
  DeployHarness typo(Roles{{"fabric", broken}});
  DeploymentResult refused = typo.Deploy();
  CHECK(refused.ending == DeploymentResult::Ending::kInvalidInput);
  CHECK_MESSAGE(refused.error.find("when of role fabric for node02") != std::string::npos, refused.error);
  CHECK(typo.fleet.node("node02").applied.empty());
}

}  // namespace clusterctl

namespace clusterctl {
namespace {

// A role that reads each node's own facts, and one that reads every node's
// (as monitoring does for its GPU targets).
const char* kOwnFactsRole = R"(description: reads the node's own facts
applies_to: [all]
when: facts.pci.gpu_count >= 0
steps:
  - name: gpus
    file: {path: /etc/gpus, content: "{{facts.pci.gpu_count}}\n"}
)";
const char* kEveryNodesFactsRole = R"(description: reads every node's facts
applies_to: [controller]
steps:
  - name: target
    loop: cluster.hosts
    when: defined(item.facts.pci.gpu_count) and item.facts.pci.gpu_count > 0
    file: {path: "/etc/targets/{{item.name}}", content: "gpu\n"}
)";

struct HostileFacts {
  const char* what;
  std::function<void(nlohmann::json&)> spoil;
  const char* named;  // what the failure must name
};

}  // namespace

TEST_CASE("a node's facts the roles cannot read fail that node alone, naming the fact; the others converge") {
  const std::vector<HostileFacts> cases = {
      {"no pci", [](nlohmann::json& f) { f.erase("pci"); }, "pci is missing"},
      {"a word for a count", [](nlohmann::json& f) { f["pci"]["gpu_count"] = "many"; }, "pci.gpu_count is \"many\""},
      {"a negative count", [](nlohmann::json& f) { f["pci"]["gpu_count"] = -1; }, "pci.gpu_count is -1"},
      {"pci a string", [](nlohmann::json& f) { f["pci"] = "\xff"; }, "pci is \""},
      {"a list for a flag", [](nlohmann::json& f) { f["systemd"] = nlohmann::json::array(); }, "systemd is []"},
      {"a line break in a line", [](nlohmann::json& f) { f["os"]["id"] = "debian\nX=1"; }, "os.id is"},
  };
  for (const HostileFacts& hostile : cases) {
    CAPTURE(hostile.what);
    // Given node03 with GPUs, and node02 whose facts are broken,
    DeployHarness h(Roles{{"own", kOwnFactsRole}, {"targets", kEveryNodesFactsRole}});
    h.fleet.node("node03").facts = testing::FakeFacts("node03", 2);
    hostile.spoil(h.fleet.node("node02").facts);
    // when the cluster is deployed,
    DeploymentResult result = h.Deploy();
    // then node02 fails with the fact named, and nothing is done on it,
    REQUIRE(result.ending == DeploymentResult::Ending::kCompleted);
    const HostReport& bad = ReportOf(result, "node02");
    CHECK(bad.outcome == HostOutcome::kFailed);
    CHECK_MESSAGE(bad.error.find(hostile.named) != std::string::npos, bad.error);
    CHECK(h.fleet.node("node02").files.empty());
    // while the others converge, node01 without node02's facts in its plan.
    CHECK(ReportOf(result, "node01").outcome == HostOutcome::kOk);
    CHECK(ReportOf(result, "node03").outcome == HostOutcome::kOk);
    CHECK(h.fleet.node("node03").files.at("/etc/gpus") == "2\n");
    CHECK(h.fleet.node("node01").files.count("/etc/targets/node03") == 1);
    CHECK(h.fleet.node("node01").files.count("/etc/targets/node02") == 0);

    // Once the node is mended, the next deploy (no --verify) gathers its facts again.
    h.fleet.node("node02").facts = testing::FakeFacts("node02", 1);
    DeploymentResult mended = h.Deploy();
    CHECK(ReportOf(mended, "node02").outcome == HostOutcome::kOk);
    CHECK(h.fleet.node("node02").files.at("/etc/gpus") == "1\n");
    CHECK(h.fleet.node("node01").files.count("/etc/targets/node02") == 1);
  }
}

// Issue 49: what a node's os-release says decides before anything changes.
constexpr const char* kPlatforms = R"(version: 1
releases:
  debian-12: {id: debian, version_id: "12", codename: bookworm, support: supported, why: "deployed here"}
  debian-13: {id: debian, version_id: "13", codename: trixie, support: planned, why: "plans only"}
  debian-11: {id: debian, version_id: "11", codename: bullseye, support: refused, why: "too old"}
  rocky: {id: rocky, support: refused, why: "no EL support"}
)";

TEST_CASE("a node of a release clusterctl refuses fails alone at plan time, naming what it plans; the others go on") {
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {{{"id", "debian"}, {"family", "debian"}, {"version_id", "11"}, {"version_codename", "bullseye"}},
       "debian 11 is refused: too old; clusterctl plans debian 12 (bookworm, supported), debian 13 (trixie, planned only)"},
      {{{"id", "rocky"}, {"family", "rhel"}, {"version_id", "9.3"}, {"version_codename", ""}},
       "rocky 9.3 is refused: no EL support; clusterctl plans debian 12"},
      {{{"id", "gentoo"}, {"family", "gentoo"}, {"version_id", ""}, {"version_codename", ""}},
       "gentoo is not a release clusterctl knows (platforms.yaml); clusterctl plans debian 12"},
  };
  for (const auto& [os, refusal] : cases) {
    CAPTURE(refusal);
    // Given node02 of a refused (or unknown) release, node03 of a planned-only one,
    DeployHarness h(Roles{{"own", kOwnFactsRole}, {"targets", kEveryNodesFactsRole}}, testing::kThreeNodeInventory,
                    kPlatforms);
    h.fleet.node("node02").facts = testing::FakeFacts("node02", 1);
    h.fleet.node("node02").facts["os"] = os;
    h.fleet.node("node03").facts = testing::FakeFacts("node03", 2);
    h.fleet.node("node03").facts["os"]["version_id"] = "13";
    // when the cluster is planned,
    DeploymentOptions check;
    check.check = true;
    DeploymentResult plan = h.Deploy(check);
    // then node02 fails with its release and the planned ones named, before anything is done on it,
    REQUIRE(plan.ending == DeploymentResult::Ending::kCompleted);
    CHECK(ReportOf(plan, "node02").outcome == HostOutcome::kFailed);
    CHECK_MESSAGE(ReportOf(plan, "node02").error.rfind(refusal, 0) == 0, ReportOf(plan, "node02").error);
    CHECK(ReportOf(plan, "node01").outcome != HostOutcome::kFailed);
    // and node03 is planned with a note that its release was never deployed here;
    bool noted = false;
    for (const nlohmann::json& note : h.Events("note")) {
      noted |= note["host"] == "node03" && note["message"] == "debian 13 (trixie) is planned only: plans only (docs/platforms.md)";
    }
    CHECK(noted);
    // when it is deployed, the others converge without node02 in their plans.
    DeploymentResult result = h.Deploy();
    CHECK(ReportOf(result, "node02").outcome == HostOutcome::kFailed);
    CHECK(h.fleet.node("node02").files.empty());
    CHECK(ReportOf(result, "node01").outcome == HostOutcome::kOk);
    CHECK(ReportOf(result, "node03").outcome == HostOutcome::kOk);
    CHECK(h.fleet.node("node01").files.count("/etc/targets/node03") == 1);
    CHECK(h.fleet.node("node01").files.count("/etc/targets/node02") == 0);
  }
}

// Issue 52: a node's architecture (facts kernel.arch) picks its
// platforms.yaml values; one with no entry fails alone at plan time.
constexpr const char* kArchPlatforms = R"(version: 2
releases:
  debian-12: {id: debian, version_id: "12", codename: bookworm, support: supported, why: "deployed here"}
architectures:
  x86_64: {support: supported, why: "deployed here"}
  aarch64: {support: planned, why: "plans only", vars: {cuda_dir: sbsa}}
)";
const char* kCudaDirRole = R"(version: 3
description: writes NVIDIA's repository directory for the node
applies_to: [all]
vars:
  cuda_dir: {default: x86_64, syntax: word, description: "the architecture's directory"}
steps:
  - name: dir
    file: {path: /etc/cuda-dir, content: "{{cuda_dir}}\n"}
)";

TEST_CASE("a node's architecture picks its values, the inventory's still win, and an unknown one fails alone") {
  // Given node02 riscv64 (no entry), node03 aarch64 (planned only), node01 x86_64,
  DeployHarness h(Roles{{"cuda", kCudaDirRole}}, testing::kThreeNodeInventory, kArchPlatforms);
  h.fleet.node("node02").facts["kernel"]["arch"] = "riscv64";
  h.fleet.node("node03").facts["kernel"]["arch"] = "aarch64";
  // when the cluster is deployed,
  DeploymentResult result = h.Deploy();
  // then node02 fails naming its architecture and the ones clusterctl plans, with nothing done on it,
  REQUIRE(result.ending == DeploymentResult::Ending::kCompleted);
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kFailed);
  CHECK(ReportOf(result, "node02").error ==
        "riscv64 is not an architecture clusterctl knows (platforms.yaml); clusterctl plans x86_64 (supported), "
        "aarch64 (planned only) (docs/platforms.md)");
  CHECK(h.fleet.node("node02").files.empty());
  // node03 gets aarch64's value, with a note that aarch64 was never deployed here, node01 the role's default;
  CHECK(h.fleet.node("node03").files.at("/etc/cuda-dir") == "sbsa\n");
  CHECK(h.fleet.node("node01").files.at("/etc/cuda-dir") == "x86_64\n");
  bool noted = false;
  for (const nlohmann::json& note : h.Events("note")) {
    noted |= note["host"] == "node03" && note["message"] == "aarch64 is planned only: plans only (docs/platforms.md)";
  }
  CHECK(noted);

  // and a host's own inventory value wins over its architecture's.
  DeployHarness own(Roles{{"cuda", kCudaDirRole}},
                    std::string(testing::kThreeNodeInventory) + "vars: {cuda_dir: site-mirror}\n", kArchPlatforms);
  own.fleet.node("node03").facts["kernel"]["arch"] = "aarch64";
  REQUIRE(own.Deploy().ending == DeploymentResult::Ending::kCompleted);
  CHECK(own.fleet.node("node03").files.at("/etc/cuda-dir") == "site-mirror\n");
}

// Issue 49, mixed releases: roles named as the built-in ones whose daemons
// must agree across releases (release_mix.h), each writing one file.
constexpr const char* kMixPlatforms = R"(version: 1
releases:
  debian-12: {id: debian, version_id: "12", codename: bookworm, support: supported, why: "deployed here",
              versions: {slurm: "22.05", openmpi: "4.1"}}
  debian-13: {id: debian, version_id: "13", codename: trixie, support: planned, why: "plans only",
              versions: {slurm: "24.11", openmpi: "5.0"}}
)";
const char* kSlurmControllerRole = R"(description: slurmctld
applies_to: [controller]
steps:
  - name: conf
    file: {path: /etc/slurmctld, content: "x\n"}
)";
const char* kSlurmNodeRole = R"(description: slurmd
applies_to: [compute]
steps:
  - name: conf
    file: {path: /etc/slurmd, content: "x\n"}
)";

TEST_CASE("a node whose release cannot join the controller's is refused before anything changes; the others go on") {
  // Given a Debian 12 controller and node03 on Debian 13 (Slurm 24.11, newer than slurmctld 22.05),
  DeployHarness h(Roles{{"slurm-controller", kSlurmControllerRole}, {"slurm-node", kSlurmNodeRole}},
                  testing::kThreeNodeInventory, kMixPlatforms);
  h.fleet.node("node03").facts["os"]["version_id"] = "13";
  // when the cluster is deployed,
  DeploymentResult result = h.Deploy();
  // then node03 fails naming both hosts and Slurm versions, with nothing done on it,
  REQUIRE(result.ending == DeploymentResult::Ending::kCompleted);
  const HostReport& refused = ReportOf(result, "node03");
  CHECK(refused.outcome == HostOutcome::kFailed);
  CHECK_MESSAGE(refused.error.find("node03 (debian 13 (trixie), Slurm 24.11) and slurmctld on node01 (debian 12 "
                                   "(bookworm), Slurm 22.05): slurmctld refuses a newer slurmd or command") !=
                    std::string::npos,
                refused.error);
  CHECK(h.fleet.node("node03").files.empty());
  // and the controller and the Debian 12 node converge.
  CHECK(ReportOf(result, "node01").outcome == HostOutcome::kOk);
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kOk);
  CHECK(h.fleet.node("node02").files.count("/etc/slurmd") == 1);

  // With node03 on Debian 12 again (reinstalled), the next deploy takes it.
  h.fleet.node("node03").facts["os"]["version_id"] = "12";
  DeploymentResult reinstalled = h.Deploy();
  CHECK(ReportOf(reinstalled, "node03").outcome == HostOutcome::kOk);
}

}  // namespace clusterctl

namespace clusterctl {
namespace {

// The position in the run's events of the first event named `name` about `host` (events.size() when none).
size_t FirstEvent(const std::vector<nlohmann::json>& events, const std::string& name, const std::string& host,
                  const std::string& phase = "") {
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i]["event"] == name && events[i].value("host", "") == host &&
        (phase.empty() || events[i].value("phase", "") == phase)) {
      return i;
    }
  }
  return events.size();
}

}  // namespace

TEST_CASE("a refused host is reported when it is refused, not when a slow host's facts are in") {
  DeployHarness h(Roles{{"web", kWebRole}});
  h.fleet.node("node02").unreachable = true;
  h.fleet.node("node03").open_delay = 300ms;  // its connection takes a while
  for (bool check : {false, true}) {
    CAPTURE(check);
    DeploymentOptions options;
    options.check = check;
    options.verify = true;  // facts gathered on every run
    DeploymentResult result = h.Deploy(options);
    CHECK(ReportOf(result, "node02").outcome == HostOutcome::kUnreachable);
    CHECK(ReportOf(result, "node03").outcome == HostOutcome::kOk);
    const std::vector<nlohmann::json> events = h.events->events();
    const size_t refused = FirstEvent(events, "host_finished", "node02");
    REQUIRE(refused < events.size());
    const size_t slow = FirstEvent(events, "host_phase", "node03", "gathering facts");
    REQUIRE(slow < events.size());
    CHECK(refused < slow);
    CHECK(h.Events("host_finished").size() == 3);  // once each
  }
}

TEST_CASE("each host's progress says connecting, then gathering facts, then its steps") {
  DeployHarness h(Roles{{"web", kWebRole}});
  h.Deploy();
  const std::vector<nlohmann::json> events = h.events->events();
  for (const char* host : {"node01", "node02", "node03"}) {
    CAPTURE(host);
    const size_t connecting = FirstEvent(events, "host_phase", host, "connecting");
    const size_t gathering = FirstEvent(events, "host_phase", host, "gathering facts");
    CHECK(connecting < gathering);
    CHECK(gathering < FirstEvent(events, "step_started", host));
    CHECK(FirstEvent(events, "step_started", host) < events.size());
  }
}

// A clock whose every reading is a second later than the last.
class TickingClock final : public Clock {
 public:
  int64_t NowMs() const override { return (ticks_ += 1000); }
  std::chrono::steady_clock::time_point Monotonic() const override {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ticks_ += 1000));
  }

 private:
  mutable std::atomic<int64_t> ticks_{1'700'000'000'000};
};

TEST_CASE("the engine reads time from the run's clock") {
  DeployHarness h(Roles{{"first", kFirstRole}, {"second", kSecondRole}});
  TickingClock clock;
  h.run_clock = &clock;
  DeploymentResult result = h.Deploy();
  REQUIRE(result.converged());
  for (const HostReport& report : result.hosts) {
    CAPTURE(report.host);
    CHECK(report.duration_ms >= 1000);  // on the system clock: a few milliseconds
  }
}

TEST_CASE("run_started names the run record, a plan's as a deploy's (plan --json said run 0)") {
  DeployHarness h(Roles{{"web", kWebRole}});
  h.Deploy();
  CHECK(h.events->events().front()["run"] == 1);
  DeploymentOptions plan;
  plan.check = true;
  h.Deploy(plan);
  CHECK(h.events->events().front()["event"] == "run_started");
  CHECK(h.events->events().front()["run"] == 2);
}

TEST_CASE("the engine waits on the run's clock: a fake clock's reboot takes its probe waits and no real time") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  h.fleet.node("node02").down_after_reboot = 2;
  FakeClock clock;
  const int64_t start = clock.NowMs();
  h.run_clock = &clock;
  h.waits = 2min;  // six minutes of waits: on the system clock the harness gives up after 60 s
  DeploymentResult result = h.Deploy();
  REQUIRE(result.converged());
  CHECK(h.fleet.node("node02").reboots == 1);
  // The first probe's wait, then one per refused probe while the node was down.
  CHECK(clock.NowMs() - start >= std::chrono::milliseconds(6min).count());
}

}  // namespace clusterctl
