// A reboot whose node does not come back within the step's timeout (issue
// 54): power-cycled through its BMC once (reboot_power_cycle_attempts), then
// waited for again; the cycle is an event of the run. On the fake fleet,
// with the real BMC path (MakeBmcNodePower -> PowerCycleHost -> ipmitool's
// argv) and a fake ipmitool answering what OpenIPMI's ipmi_sim printed.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "controller/engine/deploy_harness.h"
#include "controller/engine/node_power.h"
#include "controller/power/fake_ipmitool.h"
#include "tests/unit/fixture.h"

namespace clusterctl::testing {
namespace {

// A driver whose change owes a reboot, with a short timeout.
const char* kDriverRole = R"(description: a driver loaded at boot
applies_to: [compute]
steps:
  - name: driver
    file: {path: /etc/modules-load.d/driver.conf, content: "driver\n"}
  - name: boot
    reboot: {reason: load the driver, timeout: 1}
)";

// node02 and node03 with BMCs (node01 without; node02 neither without
// `node02_bmc`), their password in `password_file`; `extra` at the end.
std::string InventoryWithBmcs(const std::string& password_file, const std::string& extra = "",
                              bool node02_bmc = true) {
  return std::string(R"(cluster: t
connection: {user: root}
bmc: {user: admin, password_file: )") + password_file + R"(, cipher_suite: 3}
hosts:
  node01: {address: 10.9.0.1}
  node02: {address: 10.9.0.2)" + (node02_bmc ? ", bmc: {address: 10.9.50.2}" : "") + R"(}
  node03: {address: 10.9.0.3, bmc: {address: 10.9.50.3}}
groups:
  controller: {hosts: [node01]}
  compute: {hosts: [node02, node03]}
)" + extra;
}

// The BMCs as ipmi_sim answers (by address; what a BMC prints: captured):
// the power state is on unless `off`; a cycle or power on boots the fake
// node anew (unless `dead`: the BMC takes it, the node stays down);
// `refused` BMCs refuse the password.
struct FakeBmcs {
  FakeBmcs(FakeFleet& fleet, std::map<std::string, std::string> nodes) : fleet(fleet), nodes(std::move(nodes)) {}

  ProcessOutput Answer(const std::string& address, const std::string& action) {
    if (refused.count(address)) return {true, false, 1, "", CapturedFixture("ipmitool-stderr--ipmi_sim--wrong-password--1.txt")};
    if (action == "status") {
      return {true, false, 0,
              CapturedFixture(off.count(address) ? "ipmitool-chassis-power-status--ipmi_sim--off--1.txt"
                                                 : "ipmitool-chassis-power-status--ipmi_sim--on--1.txt"),
              ""};
    }
    if (!dead.count(address)) {
      FakeNode& node = fleet.node(nodes.at(address));
      std::lock_guard<std::mutex> lock(node.mutex());
      node.PowerCycle();
    }
    return {true, false, 0,
            CapturedFixture(action == "cycle" ? "ipmitool-chassis-power-cycle--ipmi_sim--1.txt"
                                              : "ipmitool-chassis-power-on--ipmi_sim--1.txt"),
            ""};
  }

  FakeFleet& fleet;
  std::map<std::string, std::string> nodes;  // BMC address -> node
  std::set<std::string> off, refused, dead;  // BMC addresses
  FakeIpmitool ipmitool{[this](const std::string& address, const std::string& action) { return Answer(address, action); }};
};

// A deploy whose node03 hangs at its reboot (down until its BMC cycles it).
struct HangingReboot {
  explicit HangingReboot(const std::string& extra = "") : h(Roles{{"driver", kDriverRole}}, InventoryWithBmcs(PasswordFile(), extra)) {
    h.fleet.node("node03").down_after_reboot = 1000000;
    h.power = power.get();
    h.waits = std::chrono::milliseconds(20);
  }

  // The events the last run recorded in the state (history --run N), as "LEVEL HOST KIND: MESSAGE".
  std::vector<std::string> History() {
    SystemFilesystemProbe probe;
    auto state = StateStore::OpenForReading(StatePaths{h.state_dir()}, probe);
    REQUIRE(state.ok());
    auto runs = (*state)->ListRuns(1);
    REQUIRE((runs.ok() && runs->size() == 1));
    auto events = (*state)->EventsOfRun(runs->front().id);
    REQUIRE(events.ok());
    std::vector<std::string> out;
    auto text = [](const nlohmann::json& e, const char* key) {
      return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : std::string();
    };
    for (const nlohmann::json& e : *events) {
      out.push_back(text(e, "level") + " " + text(e, "host") + " " + text(e, "kind") + ": " + text(e, "message"));
    }
    return out;
  }

  std::string PasswordFile() {
    const std::string path = secrets.path() + "/bmc.pw";
    std::ofstream(path) << "s3cret\n";
    ::chmod(path.c_str(), 0600);
    return path;
  }

  TempDir secrets;
  DeployHarness h;
  FakeBmcs bmcs{h.fleet, {{"10.9.50.2", "node02"}, {"10.9.50.3", "node03"}}};
  std::unique_ptr<NodePower> power = MakeBmcNodePower(bmcs.ipmitool);
};

bool HasLine(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("a node that does not come back from its reboot is power-cycled through its BMC once, and the deploy completes") {
  HangingReboot t;
  DeploymentResult result = t.h.Deploy();
  CHECK(result.converged());
  CHECK(t.h.fleet.node("node03").power_cycles == 1);
  CHECK(t.h.fleet.node("node03").boot_id == "boot-cycled-1");
  CHECK(t.h.fleet.node("node02").power_cycles == 0);  // it came back by itself
  CHECK(t.bmcs.ipmitool.Calls() == std::vector<std::string>{"10.9.50.3 status", "10.9.50.3 cycle"});
  // The live output: the first wait gives up naming the BMC, the cycle is a note, the second wait ends.
  bool gave_up = false, noted = false;
  for (const nlohmann::json& e : t.h.Events("wait")) {
    gave_up = gave_up || (e["host"] == "node03" && e["phase"] == "gave up" &&
                          e["detail"] == "power cycle through its BMC 10.9.50.3");
  }
  for (const nlohmann::json& e : t.h.Events("note")) {
    noted = noted || e["message"] == "power cycle through its BMC 10.9.50.3 (node03 did not come back from the reboot "
                                     "within 1 s): power was on: power cycle requested";
  }
  CHECK(gave_up);
  CHECK(noted);
  // The history: when (each event's time), why and what the BMC said; the step's record names the cycle.
  const std::vector<std::string> history = t.History();
  CHECK(HasLine(history, "warning node03 power: power cycle through its BMC 10.9.50.3 (node03 did not come back from "
                         "the reboot within 1 s): power was on: power cycle requested"));
  CHECK_FALSE(HasLine(history, "node02 power:"));
  bool recorded = false;
  for (const StepReport& s : ReportOf(result, "node03").steps) {
    recorded = recorded || (s.identity == "driver/boot" && s.status == StepStatus::kChanged &&
                            s.differences.size() == 1 &&
                            s.differences[0].find("after a power cycle through its BMC 10.9.50.3") != std::string::npos);
  }
  CHECK(recorded);
  CHECK(t.h.OpenIntents().empty());
}

TEST_CASE("a BMC that reads off is asked to power on, not to cycle") {
  HangingReboot t;
  t.bmcs.off.insert("10.9.50.3");
  CHECK(t.h.Deploy().converged());
  CHECK(t.bmcs.ipmitool.Calls() == std::vector<std::string>{"10.9.50.3 status", "10.9.50.3 on"});
  CHECK(HasLine(t.History(), "power was off: power on requested"));
}

TEST_CASE("a node still not back after its power cycle fails after the one cycle allowed; the reboot stays owed") {
  HangingReboot t;
  t.bmcs.dead.insert("10.9.50.3");
  DeploymentResult result = t.h.Deploy();
  CHECK(ReportOf(result, "node03").outcome == HostOutcome::kUnreachable);
  CHECK(ReportOf(result, "node03").error ==
        "did not come back within 1 s of its power cycle through its BMC 10.9.50.3 "
        "(reboot_power_cycle_attempts is 1: not power-cycled again)");
  CHECK(t.bmcs.ipmitool.Calls().size() == 2);  // one status, one cycle
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kOk);
  REQUIRE(t.h.OpenIntents().size() == 1);
}

TEST_CASE("reboot_power_cycle_attempts: 0 never power-cycles, 2 cycles twice") {
  SUBCASE("0") {
    HangingReboot t("vars: {reboot_power_cycle_attempts: 0}\n");
    DeploymentResult result = t.h.Deploy();
    CHECK(ReportOf(result, "node03").error ==
          "did not come back from the reboot within 1 s (reboot_power_cycle_attempts is 0: not "
          "power-cycled)");
    CHECK(t.bmcs.ipmitool.Calls().empty());
  }
  SUBCASE("2") {
    HangingReboot t("vars: {reboot_power_cycle_attempts: 2}\n");
    t.bmcs.dead.insert("10.9.50.3");
    DeploymentResult result = t.h.Deploy();
    CHECK(t.bmcs.ipmitool.Calls().size() == 4);
    CHECK(ReportOf(result, "node03").error.find("reboot_power_cycle_attempts is 2: not power-cycled again") !=
          std::string::npos);
  }
}

TEST_CASE("a host without a bmc fails as before, saying no BMC is configured") {
  HangingReboot t;
  t.h.fleet.node("node03").down_after_reboot = 0;
  t.h.fleet.node("node02").down_after_reboot = 1000000;
  t.h.SetInventory(InventoryWithBmcs(t.PasswordFile(), "", /*node02_bmc=*/false));
  DeploymentResult result = t.h.Deploy();
  CHECK(ReportOf(result, "node02").outcome == HostOutcome::kUnreachable);
  CHECK(ReportOf(result, "node02").error ==
        "did not come back from the reboot within 1 s; no BMC is configured for node02 (inventory: "
        "bmc), so it was not power-cycled");
  CHECK(t.bmcs.ipmitool.Calls().empty());
  CHECK(ReportOf(result, "node03").outcome == HostOutcome::kOk);
}

TEST_CASE("a BMC that refuses the password fails the host with the BMC's reason, recorded as an error") {
  HangingReboot t;
  t.bmcs.refused.insert("10.9.50.3");
  DeploymentResult result = t.h.Deploy();
  const std::string error = ReportOf(result, "node03").error;
  CHECK(error.find("did not come back from the reboot within 1 s; the power cycle through its BMC "
                   "10.9.50.3 failed: the BMC at 10.9.50.3:623 refused the password of user 'admin'") == 0);
  CHECK(error.find("s3cret") == std::string::npos);
  CHECK(HasLine(t.History(), "error node03 power: power cycle through its BMC 10.9.50.3"));
}

}  // namespace
}  // namespace clusterctl::testing
