// bmc.reachable and bmc.sel, the out-of-band checks, on a FakeClusterRun
// whose BMCs answer what ipmitool printed: SELs captured from OpenIPMI's
// ipmi_sim on this project's machine and from real servers quoted in public
// issues (tests/fixtures/captured/SOURCES.md, "ipmitool"), read by the power
// engine's own parser.
#include <doctest/doctest.h>

#include "controller/power/ipmitool.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"
#include "tests/unit/inventory_with_files.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: testbed
bmc: {user: admin, password_file: bmc.pw}
hosts:
  node01: {address: 10.0.0.11, bmc: {address: 10.0.9.11}}
  node02: {address: 10.0.0.12, bmc: {address: 10.0.9.12}}
  node03: {address: 10.0.0.13}
groups:
  controller: {hosts: node01}
  compute: {hosts: [node02, node03]}
)";

// The SEL a BMC answers with: `sel list`'s capture, read by ParseSelList.
PowerResult Sel(const Host& host, const std::string& capture) {
  Result<std::vector<SelEntry>> sel = ParseSelList(testing::CapturedFixture(capture));
  REQUIRE_MESSAGE(sel.ok(), sel.status().message());
  return {&host, true, std::to_string(sel->size()) + " SEL entries", {}, std::move(sel).value()};
}

// Every host selected; node03 (no bmc) does not answer over SSH. node01's
// SEL holds only informational entries, node02's the given capture.
struct BmcBench : testing::FakeClusterRun {
  std::string node02_sel = "ipmitool-sel-list--ipmi_sim--4-entries--1.txt";
  BmcBench() {
    inv = testing::InventoryWithFilesFromText(kInventory);
    for (const char* host : {"node01", "node02", "node03"}) {
      Node(host);
      probed.push_back({host, true, std::string(host) != "node03", ""});
    }
    bmc = [this](const Host& host, PowerAction action) {
      if (action == PowerAction::kStatus) return PowerResult{&host, true, "power is on", PowerState::kOn, {}};
      return Sel(host, host.name == "node02" ? node02_sel : "ipmitool-sel-list--ipmi_sim--informational-only--1.txt");
    };
  }
};

TEST_CASE("bmc.reachable asks each BMC for its power state, node by node, SSH or not") {
  BmcBench run;
  run.probed[1].reached = false;  // node02 answers no SSH: its BMC is still read
  run.bmc = [](const Host& host, PowerAction) {
    if (host.name == "node01") return PowerResult{&host, true, "power is on", PowerState::kOn, {}};
    return PowerResult{&host, false, "the BMC at 10.0.9.12:623 refused the password of user 'admin' (from /tmp/bmc.pw)", {}, {}};
  };
  run.Phase("bmc.reachable");
  REQUIRE(run.bmc_asked.size() == 2);
  CHECK(run.bmc_asked[0] == std::make_pair(std::string("node01"), PowerAction::kStatus));
  CHECK(run.bmc_asked[1].first == "node02");
  CHECK(run.Of("node01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node01").measured == "power is on");
  CHECK(run.Of("node02").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node02").detail == "the BMC at 10.0.9.12:623 refused the password of user 'admin' (from /tmp/bmc.pw)");
  CHECK(run.Of("node03").outcome == CheckOutcome::kSkip);
  CHECK(run.Of("node03").detail == "no bmc in the inventory for node03");
  CHECK(run.results.size() == 3);
}

TEST_CASE("without a BMC in the inventory each host is skipped and no BMC asked") {
  testing::FakeClusterRun run;
  run.inv = testing::InventoryFromText("cluster: c\nhosts:\n  node01: {address: 10.0.0.11}\n");
  run.Node("node01");
  run.probed.push_back({"node01", true, true, ""});
  run.Phase("bmc.reachable");
  run.Phase("bmc.sel");
  REQUIRE(run.results.size() == 2);
  CHECK(run.results[0].outcome == CheckOutcome::kSkip);
  CHECK(run.results[1].detail == "no bmc in the inventory for node01");
  CHECK(run.bmc_asked.empty());
}

TEST_CASE("bmc.sel fails a node whose SEL holds critical entries, naming them; informational entries pass") {
  BmcBench run;
  run.Phase("bmc.sel");
  const CheckResult& node01 = run.Of("node01");
  CHECK_MESSAGE(node01.outcome == CheckOutcome::kPass, node01.detail);
  CHECK(node01.detail == "5 SEL entries, none critical");  // correctable ECC, presence, a deasserted threshold, boot
  const CheckResult& node02 = run.Of("node02");
  REQUIRE(node02.outcome == CheckOutcome::kFail);
  CHECK(node02.measured == "3 critical");
  REQUIRE(node02.evidence.size() == 3);
  CHECK(node02.evidence[0] == "5 | Pre-Init 0000059009 | Memory #0x01 | Uncorrectable ECC | Asserted");
  CHECK(node02.evidence[1] == "6 | Pre-Init 0000059009 | Power Supply #0x02 | Failure detected | Asserted");
  CHECK(node02.evidence[2] == "7 | Pre-Init 0000059009 | Temperature #0x03 | Upper Critical going high | Asserted");
  CHECK(node02.detail.rfind("3 critical of 4 SEL entries (first: 5 | ", 0) == 0);
  CHECK(run.Of("node03").outcome == CheckOutcome::kSkip);
}

TEST_CASE("bmc.sel's default list judges each kind of fault ipmi_sim recorded") {
  BmcBench run;
  run.node02_sel = "ipmitool-sel-list--ipmi_sim--critical-kinds--1.txt";
  run.Phase("bmc.sel");
  const CheckResult& r = run.Of("node02");
  REQUIRE(r.outcome == CheckOutcome::kFail);
  // IERR, thermal trip, PSU failure and AC lost, two thresholds, PCI SERR; not the correctable ECC
  CHECK(r.measured == "7 critical");
  CHECK(r.evidence.back() == "d | Pre-Init 0000000470 | Critical Interrupt #0x06 | PCI SERR | Asserted");
}

// bmc.sel's result on node02 whose SEL is `capture`.
CheckResult Node02Sel(const std::string& capture) {
  BmcBench run;
  run.node02_sel = capture;
  run.Phase("bmc.sel");
  return run.Of("node02");
}

TEST_CASE("bmc.sel on SELs of real servers") {
  // uncorrectable machine checks (an FBOSS switch's x86 host) fail
  CHECK(Node02Sel("ipmitool-sel-list--fboss--uncorrectable-mce--1.txt").measured == "4 critical");
  // a correctable ECC with the vendor's DIMM label (Quanta) passes: 'Correctable' is not 'Uncorrectable'
  CHECK(Node02Sel("ipmitool-sel-elist--QuantaPlex-T22HF--correctable-ecc-dimm-label--1.txt").outcome == CheckOutcome::kPass);
  // power off/down and firmware progress are informational
  CHECK(Node02Sel("ipmitool-sel-elist--sos-2015--power-unit-informational--1.txt").outcome == CheckOutcome::kPass);
  CHECK(Node02Sel("ipmitool-sel-list--OpenPOWER--firmware-progress--1.txt").outcome == CheckOutcome::kPass);
  // an event ipmitool has no text for is not judged critical
  CHECK(Node02Sel("ipmitool-sel-list--fboss--temperature-no-description--1.txt").detail == "3 SEL entries, none critical");
}

TEST_CASE("bmc.sel's variables: what is critical, and sensors never judged") {
  BmcBench run;
  SUBCASE("an entry whose vendor text follows the event is critical when the event is") {
    run.vars["node02"] = {{"validate_bmc_sel_critical", {"correctable ecc"}}};
    run.node02_sel = "ipmitool-sel-elist--QuantaPlex-T22HF--correctable-ecc-dimm-label--1.txt";
    run.Phase("bmc.sel");
    CHECK(run.Of("node02").measured == "1 critical");
  }
  SUBCASE("a prefix of a longer word is no match") {
    run.vars["node02"] = {{"validate_bmc_sel_critical", {"Uncorrectable"}}, {"validate_bmc_sel_ignore", nlohmann::json::array()}};
    run.Phase("bmc.sel");
    CHECK(run.Of("node02").measured == "1 critical");  // "Uncorrectable ECC"; "Uncorrectable" is a whole word there
    run.results.clear();
    run.vars["node02"] = {{"validate_bmc_sel_critical", {"Uncorrect"}}};
    run.Phase("bmc.sel");
    CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
  }
  SUBCASE("an ignored sensor's entries pass") {
    run.vars["node02"] = {{"validate_bmc_sel_ignore", {"power supply #0x02", "Temperature"}}};
    run.Phase("bmc.sel");
    CHECK(run.Of("node02").measured == "1 critical");
    CHECK(run.Of("node02").evidence.front().find("Memory #0x01") != std::string::npos);
  }
}

TEST_CASE("bmc.sel without a reading: a BMC not reached, a SEL not read") {
  BmcBench run;
  SUBCASE("bmc.reachable failed: skipped naming it, the BMC not asked again") {
    run.earlier.push_back(Fail("bmc.reachable", CheckScope::kNode, "node02", "the BMC at 10.0.9.12:623 does not answer"));
    run.Phase("bmc.sel");
    CHECK(run.Of("node02").outcome == CheckOutcome::kSkip);
    CHECK(run.Of("node02").detail == "the BMC of node02 was not reached (bmc.reachable failed)");
    REQUIRE(run.bmc_asked.size() == 1);
    CHECK(run.bmc_asked[0].first == "node01");
  }
  SUBCASE("the SEL unread fails: no reading, no pass") {
    run.bmc = [](const Host& host, PowerAction) {
      return PowerResult{&host, false, "unreadable SEL line 'SEL Record ID          : 0005'", {}, {}};
    };
    run.Phase("bmc.sel");
    CHECK(run.Of("node01").outcome == CheckOutcome::kFail);
    CHECK(run.Of("node01").detail == "the SEL was not read: unreadable SEL line 'SEL Record ID          : 0005'");
  }
}

}  // namespace
}  // namespace clusterctl
