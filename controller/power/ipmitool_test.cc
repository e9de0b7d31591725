// ipmitool's argument vector and its output read, on real captures from
// Debian 12's ipmitool 1.8.19 against OpenIPMI's ipmi_sim 2.0.33
// (tests/fixtures/captured/SOURCES.md, "ipmitool").
#include "controller/power/ipmitool.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

std::string Captured(const std::string& name) {
  std::ifstream in(testing::SharedFixturesDir() + "/" + name);
  REQUIRE_MESSAGE(in.good(), name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

BmcSettings TestBmc() {
  BmcSettings bmc;
  bmc.address = "10.0.9.3";
  bmc.user = "admin";
  bmc.password_file = "/inv/secrets/bmc.pw";
  return bmc;
}

}  // namespace

TEST_CASE("ipmitool's argument vector names the password file, never the password") {
  BmcSettings bmc = TestBmc();
  bmc.cipher_suite = 3;
  CHECK(IpmitoolArgv(bmc, PowerAction::kCycle) ==
        std::vector<std::string>{"ipmitool", "-v", "-I", "lanplus", "-H", "10.0.9.3", "-p", "623", "-U", "admin", "-f",
                                 "/inv/secrets/bmc.pw", "-C", "3", "-N", "2", "-R", "2", "chassis", "power", "cycle"});
  bmc.interface = BmcInterface::kLan;
  bmc.cipher_suite.reset();
  CHECK(IpmitoolArgv(bmc, PowerAction::kSel) ==
        std::vector<std::string>{"ipmitool", "-I", "lan", "-H", "10.0.9.3", "-p", "623", "-U", "admin", "-f",
                                 "/inv/secrets/bmc.pw", "-N", "2", "-R", "2", "sel", "list"});
}

TEST_CASE("chassis power status reads on and off; anything else is an error") {
  CHECK(*ParsePowerStatus(Captured("ipmitool-chassis-power-status--ipmi_sim--on--1.txt")) == PowerState::kOn);
  CHECK(*ParsePowerStatus(Captured("ipmitool-chassis-power-status--ipmi_sim--off--1.txt")) == PowerState::kOff);
  CHECK_FALSE(ParsePowerStatus("").ok());
  CHECK_FALSE(ParsePowerStatus("Chassis Power is unknown\n").ok());
}

TEST_CASE("chassis power control is taken only when the BMC confirms it") {
  CHECK(ParsePowerControl(Captured("ipmitool-chassis-power-off--ipmi_sim--1.txt")).ok());
  CHECK(ParsePowerControl(Captured("ipmitool-chassis-power-on--ipmi_sim--1.txt")).ok());
  CHECK_FALSE(ParsePowerControl("").ok());
}

TEST_CASE("sel list reads every record, an empty SEL as none, and refuses a line it cannot read") {
  auto entries = ParseSelList(Captured("ipmitool-sel-list--ipmi_sim--4-entries--1.txt"));
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == 4);
  CHECK((*entries)[0].id == "5");
  CHECK((*entries)[0].when == "Pre-Init 0000059009");
  CHECK((*entries)[0].sensor == "Memory #0x01");
  CHECK((*entries)[0].event == "Uncorrectable ECC");
  CHECK((*entries)[0].direction == "Asserted");
  CHECK((*entries)[2].event == "Upper Critical going high");
  auto empty = ParseSelList(Captured("ipmitool-sel-list--ipmi_sim--empty--1.txt"));
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  // A BMC whose clock is set prints the date and time (ipmitool's sel.c
  // format; constructed, no capture here has a set clock).
  auto dated = ParseSelList("  1a | 11/29/2026 | 16:27:03 | Power Supply #0x02 | Failure detected | Asserted\n");
  REQUIRE(dated.ok());
  CHECK((*dated)[0].id == "1a");
  CHECK((*dated)[0].when == "11/29/2026 16:27:03");
  CHECK_FALSE(ParseSelList("SEL Record ID          : 0005\n").ok());  // the -v format is not read as a list
}

TEST_CASE("a refused session says why from ipmitool's -v lines") {
  const BmcSettings bmc = TestBmc();
  CHECK(ExplainIpmitoolFailure(Captured("ipmitool-stderr--ipmi_sim--wrong-password--1.txt"), bmc) ==
        "the BMC at 10.0.9.3:623 refused the password of user 'admin' (from /inv/secrets/bmc.pw)");
  CHECK(ExplainIpmitoolFailure(Captured("ipmitool-stderr--ipmi_sim--unknown-user--1.txt"), bmc) ==
        "the BMC at 10.0.9.3:623 does not know user 'admin'");
  CHECK(ExplainIpmitoolFailure(Captured("ipmitool-stderr--ipmi_sim--cipher-17--1.txt"), bmc) ==
        "the BMC at 10.0.9.3:623 does not offer cipher suite (ipmitool's default): set bmc cipher_suite (3 is the "
        "common one)");
  CHECK(ExplainIpmitoolFailure(Captured("ipmitool-stderr--no-bmc-listening--1.txt"), bmc) ==
        "the BMC at 10.0.9.3:623 does not answer");
  CHECK(ExplainIpmitoolFailure(Captured("ipmitool-chassis-power-reset--ipmi_sim--unsupported--stderr--1.txt"), bmc) ==
        "the BMC at 10.0.9.3:623: Set Chassis Power Control to Reset failed: Invalid data field in request");
  CHECK(ExplainIpmitoolFailure("Error: Unable to establish IPMI v2 / RMCP+ session\n", bmc) ==
        "the BMC at 10.0.9.3:623 opened no session (a wrong user, password or cipher suite, or no answer)");
}

}  // namespace clusterctl
