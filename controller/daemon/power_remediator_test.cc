// The daemon's power remediation carried out (issue 54): on a Slurm reading
// with nodes down, a hung node (no SSH, its BMC on) is silenced, then
// power-cycled through its BMC; the others are left, each logged once with
// why. SSH is the fake fleet, ipmitool a fake answering what OpenIPMI's
// ipmi_sim printed, Alertmanager a fake.
#include "controller/daemon/power_remediator.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>

#include "controller/engine/fake_fleet.h"
#include "controller/power/fake_ipmitool.h"
#include "controller/state/test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

// Every BMC reads on and takes a cycle, as ipmi_sim answered (captured).
ProcessOutput BmcOn(const std::string& /*address*/, const std::string& action) {
  return {true, false, 0,
          testing::CapturedFixture(action == "status" ? "ipmitool-chassis-power-status--ipmi_sim--on--1.txt"
                                                      : "ipmitool-chassis-power-cycle--ipmi_sim--1.txt"),
          ""};
}

class FakeSilences final : public MaintenanceSilences {
 public:
  std::vector<std::string> opened;  // "HOST until MS"
  Task<Result<std::string>> Open(const std::string& host, const std::string&, int64_t ends_at_ms) override {
    opened.push_back(host + " until " + std::to_string(ends_at_ms));
    co_return std::string("silence-1");
  }
  Task<Status> Close(const std::string&, const std::string&, int64_t, WaitReport&) override { co_return Status::Ok(); }
};

struct Setup {
  Setup() {
    const std::string pw = dir.path() + "/bmc.pw";
    std::ofstream(pw) << "pw\n";
    ::chmod(pw.c_str(), 0600);
    inventory = testing::InventoryFromText(R"(cluster: t
bmc: {user: admin, password_file: )" + pw + R"(}
hosts:
  gpu01: {address: 10.9.0.1, bmc: {address: 10.9.50.1}}
  gpu02: {address: 10.9.0.2, bmc: {address: 10.9.50.2}}
groups:
  rack_a: {hosts: gpu01}
  rack_b: {hosts: gpu02}
)");
    for (const char* name : {"gpu01", "gpu02"}) fleet.Add(name);
    fleet.node("gpu01").unreachable = true;  // hung
    reading.unavailable = {{"gpu01", "DOWN*", "down, not responding", "Not responding", false},
                           {"gpu02", "DOWN", "down", "slurmd stopped", false}};
  }

  PowerRemediator Remediator(bool enabled) {
    PowerRemediationPolicy policy;
    policy.enabled = enabled;
    return PowerRemediator(policy, ipmitool, clock, [this](LogLevel, const std::string& line) { log.push_back(line); });
  }

  testing::TempDir dir;
  Inventory inventory;
  testing::FakeFleet fleet;
  testing::FakeIpmitool ipmitool{BmcOn};
  FakeSilences silences;
  FakeClock clock;
  SlurmNodesReading reading;
  std::vector<std::string> log;
};

TEST_CASE("a hung node is silenced, then power-cycled through its BMC; one that answers over SSH is left, saying why") {
  Setup s;
  PowerRemediator remediator = s.Remediator(true);
  remediator.Turn(s.inventory, s.reading, s.fleet, &s.silences);
  const std::vector<std::string> calls = s.ipmitool.Calls();
  REQUIRE(calls.size() == 4);  // both BMCs asked at once, then gpu01's cycle (PowerCycleHost asks first)
  CHECK(std::set<std::string>(calls.begin(), calls.begin() + 2) ==
        std::set<std::string>{"10.9.50.1 status", "10.9.50.2 status"});
  CHECK(std::vector<std::string>(calls.begin() + 2, calls.end()) ==
        std::vector<std::string>{"10.9.50.1 status", "10.9.50.1 cycle"});
  REQUIRE(s.silences.opened.size() == 1);
  CHECK(s.silences.opened[0] == "gpu01 until " + std::to_string(s.clock.NowMs() + 900'000));
  REQUIRE(remediator.Cycles().size() == 1);
  CHECK(remediator.Cycles()[0].host == "gpu01");
  CHECK(s.log == std::vector<std::string>{
                     "power: power cycle of gpu01 through its BMC 10.9.50.1: down in Slurm, no answer over SSH, its BMC "
                     "reads on",
                     "power: gpu01: power was on: power cycle requested",
                     "power: gpu02 is down in Slurm, not power-cycled: it answers over SSH: down in Slurm for another "
                     "reason (slurmd, munge, its network)"});
  // The next reading: gpu01 still down, within its settle time: not again; gpu02's reason is not logged twice.
  s.log.clear();
  remediator.Turn(s.inventory, s.reading, s.fleet, &s.silences);
  CHECK(s.silences.opened.size() == 1);
  CHECK(s.log.size() == 1);
  CHECK(s.log[0].find("power: gpu01 is down in Slurm, not power-cycled: power-cycled 0 s ago") == 0);
}

TEST_CASE("power remediation off: nothing is asked, nothing cycled") {
  Setup s;
  PowerRemediator remediator = s.Remediator(false);
  remediator.Turn(s.inventory, s.reading, s.fleet, &s.silences);
  CHECK(s.ipmitool.Calls().empty());
  CHECK(s.silences.opened.empty());
  CHECK(s.fleet.node("gpu01").opens == 0);
}

TEST_CASE("a drained node that is not down is no candidate; without Alertmanager the cycle goes ahead") {
  Setup s;
  s.reading.unavailable = {{"gpu01", "IDLE+DRAIN", "drained", "maintenance", false}};
  PowerRemediator remediator = s.Remediator(true);
  remediator.Turn(s.inventory, s.reading, s.fleet, nullptr);
  CHECK(s.ipmitool.Calls().empty());
  s.reading.unavailable = {{"gpu01", "DOWN*", "down, not responding", "", false}};
  remediator.Turn(s.inventory, s.reading, s.fleet, nullptr);
  CHECK(s.ipmitool.Calls().back() == "10.9.50.1 cycle");
}

}  // namespace
}  // namespace clusterctl
