// The daemon's power remediation policy (issue 54): which nodes down in
// Slurm it power-cycles through their BMCs, and why it leaves the others.
#include "controller/daemon/power_remediation.h"

#include <doctest/doctest.h>

#include <fstream>

#include "controller/state/test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

// gpu01-gpu03 in rack a, gpu04 in rack b, all compute (unless not
// `compute`); login01 without a BMC.
struct Site {
  explicit Site(bool compute = true) {
    std::ofstream(dir.path() + "/bmc.pw") << "pw\n";
    inventory = testing::InventoryFromText(R"(cluster: t
bmc: {user: admin, password_file: )" + dir.path() + R"(/bmc.pw}
hosts:
  gpu[01-04]:
    address: 10.9.0.[1-4]
    bmc: {address: "10.9.50.[1-4]"}
  login01: {address: 10.9.0.9}
groups:
  rack_a: {hosts: "gpu[01-03]"}
  rack_b: {hosts: gpu04}
  login: {hosts: login01}
)" + (compute ? "  compute: {children: [rack_a, rack_b]}\n" : ""));
  }
  // A node down in Slurm, unreachable, its BMC on: hung.
  DownNode Hung(const std::string& name) const { return {inventory.FindHost(name), false, PowerState::kOn, ""}; }

  testing::TempDir dir;
  Inventory inventory;
};

constexpr int64_t kNow = 1'800'000'000'000;
constexpr int64_t kMinute = 60'000;

std::vector<std::string> Cycled(const std::vector<PowerDecision>& decisions) {
  std::vector<std::string> names;
  for (const PowerDecision& d : decisions) {
    if (d.cycle) names.push_back(d.host->name);
  }
  return names;
}

PowerRemediationPolicy On(int per_hour) {
  PowerRemediationPolicy policy;
  policy.enabled = true;
  policy.max_per_hour = per_hour;
  return policy;
}

TEST_CASE("off by default: nothing is decided, whatever is down") {
  Site site;
  CHECK(DecidePowerCycles({}, {site.Hung("gpu01")}, {}, {"gpu01"}, site.inventory, kNow).empty());
}

TEST_CASE("only a node that is hung is power-cycled: no SSH answer and its BMC on; each other one says why not") {
  Site site;
  DownNode answers = site.Hung("gpu02");
  answers.answers_ssh = true;
  DownNode off = site.Hung("gpu03");
  off.bmc = PowerState::kOff;
  DownNode unread = site.Hung("gpu04");
  unread.bmc.reset();
  unread.bmc_error = "the BMC at 10.9.50.4:623 gave no answer within 16 s";
  DownNode no_bmc{site.inventory.FindHost("login01"), false, std::nullopt, ""};
  auto decisions = DecidePowerCycles(On(10), {site.Hung("gpu01"), answers, off, unread, no_bmc}, {},
                                     {"gpu01", "gpu02", "gpu03", "gpu04", "login01"}, site.inventory, kNow);
  REQUIRE(decisions.size() == 5);
  CHECK(decisions[0].cycle);
  CHECK(decisions[0].why == "down in Slurm, no answer over SSH, its BMC reads on");
  CHECK(decisions[1].why == "it answers over SSH: down in Slurm for another reason (slurmd, munge, its network)");
  CHECK(decisions[2].why == "its BMC reads off: powered off, not hung");
  CHECK(decisions[3].why == "its BMC gives no power state: the BMC at 10.9.50.4:623 gave no answer within 16 s");
  CHECK(decisions[4].why == "no BMC is configured for it (inventory: bmc)");
  CHECK(Cycled(decisions) == std::vector<std::string>{"gpu01"});
}

TEST_CASE("never two nodes of a group at once") {
  SUBCASE("racks alone: one of rack a, and rack b's beside it") {
    Site site(/*compute=*/false);
    auto decisions = DecidePowerCycles(On(10), {site.Hung("gpu01"), site.Hung("gpu02"), site.Hung("gpu04")}, {},
                                       {"gpu01", "gpu02", "gpu04"}, site.inventory, kNow);
    CHECK(Cycled(decisions) == std::vector<std::string>{"gpu01", "gpu04"});
    CHECK(decisions[1].why == "gpu01 of its group rack_a is being power-cycled");
  }
  SUBCASE("compute holds them all: one at a time") {
    Site site;
    auto decisions = DecidePowerCycles(On(10), {site.Hung("gpu01"), site.Hung("gpu02"), site.Hung("gpu04")}, {},
                                       {"gpu01", "gpu02", "gpu04"}, site.inventory, kNow);
    CHECK(Cycled(decisions) == std::vector<std::string>{"gpu01"});
    CHECK(decisions[2].why == "gpu01 of its group compute is being power-cycled");
  }
}

TEST_CASE("a node cycled earlier holds its groups while still down; back in Slurm, it holds nothing") {
  Site site;
  const std::vector<PastPowerCycle> past = {{"gpu01", kNow - 5 * kMinute}};
  auto held = DecidePowerCycles(On(10), {site.Hung("gpu01"), site.Hung("gpu02")}, past, {"gpu01", "gpu02"},
                                site.inventory, kNow);
  CHECK(Cycled(held).empty());
  CHECK(held[0].why == "power-cycled 300 s ago: given 900 s to come back");
  CHECK(held[1].why.find("gpu01 of its group") == 0);
  auto back = DecidePowerCycles(On(10), {site.Hung("gpu02")}, past, {"gpu02"}, site.inventory, kNow);
  CHECK(Cycled(back) == std::vector<std::string>{"gpu02"});
  // Past its settle time a node still down holds nothing either, and may be cycled again.
  auto later = DecidePowerCycles(On(10), {site.Hung("gpu01")}, {{"gpu01", kNow - 20 * kMinute}}, {"gpu01"},
                                 site.inventory, kNow);
  CHECK(Cycled(later) == std::vector<std::string>{"gpu01"});
}

TEST_CASE("at most N power cycles in any hour; an hour-old one no longer counts") {
  Site site;
  const std::vector<PastPowerCycle> past = {{"gpu04", kNow - 30 * kMinute}};
  auto spent = DecidePowerCycles(On(1), {site.Hung("gpu01")}, past, {"gpu01"}, site.inventory, kNow);
  CHECK(Cycled(spent).empty());
  CHECK(spent[0].why == "1 power cycle(s) in the last hour already (at most 1)");
  auto renewed = DecidePowerCycles(On(1), {site.Hung("gpu01")}, {{"gpu04", kNow - 61 * kMinute}}, {"gpu01"},
                                   site.inventory, kNow);
  CHECK(Cycled(renewed) == std::vector<std::string>{"gpu01"});
  CHECK(WithinTheHour({{"a", kNow - 61 * kMinute}, {"b", kNow - 59 * kMinute}}, kNow).size() == 1);
}

}  // namespace
}  // namespace clusterctl
