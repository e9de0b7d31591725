// The power engine on a fake ipmitool (recorded answers by BMC address) and
// the real local process runner on small programs.
#include "controller/power/power_run.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

std::string Captured(const std::string& name) {
  std::ifstream in(testing::SharedFixturesDir() + "/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Answers ipmitool by the BMC address after -H; records every argv.
class FakeIpmitool final : public ProcessRunner {
 public:
  std::map<std::string, ProcessOutput> answers;
  std::vector<std::vector<std::string>> calls;

  ProcessOutput Run(const std::vector<std::string>& argv, std::chrono::milliseconds) override {
    std::lock_guard<std::mutex> lock(mutex_);
    calls.push_back(argv);
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "-H" && answers.count(argv[i + 1])) return answers[argv[i + 1]];
    }
    return {true, false, 1, "", "Error: Unable to establish IPMI v2 / RMCP+ session\n"};
  }

 private:
  std::mutex mutex_;
};

// A password file in a fresh directory, with `mode`.
std::string PasswordFile(const std::string& password, mode_t mode) {
  char dir[] = "/tmp/clusterctl-bmc-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/bmc.pw";
  std::ofstream(path) << password;
  ::chmod(path.c_str(), mode);
  return path;
}

Host HostWithBmc(const std::string& name, const std::string& bmc_address, const std::string& password_file) {
  Host host;
  host.name = name;
  host.bmc = BmcSettings{};
  host.bmc->address = bmc_address;
  host.bmc->user = "admin";
  host.bmc->password_file = password_file;
  return host;
}

}  // namespace

TEST_CASE("power status asks every BMC; a refused password or a missing bmc fails that host alone") {
  const std::string password = "s3cret-pw";
  const std::string file = PasswordFile(password, 0600);
  Host node01 = HostWithBmc("node01", "10.0.9.1", file);
  Host node02 = HostWithBmc("node02", "10.0.9.2", file);
  Host node03 = HostWithBmc("node03", "10.0.9.3", file);
  Host head01;
  head01.name = "head01";
  FakeIpmitool ipmitool;
  ipmitool.answers["10.0.9.1"] = {true, false, 0, Captured("ipmitool-chassis-power-status--ipmi_sim--on--1.txt"), ""};
  ipmitool.answers["10.0.9.2"] = {true, false, 1, "", Captured("ipmitool-stderr--ipmi_sim--wrong-password--1.txt")};
  ipmitool.answers["10.0.9.3"] = {true, false, 0, Captured("ipmitool-chassis-power-status--ipmi_sim--off--1.txt"), ""};

  std::vector<PowerResult> results = RunPower({&node01, &node02, &node03, &head01}, PowerAction::kStatus, ipmitool, 4);
  REQUIRE(results.size() == 4);
  CHECK(PowerResultText(results[0]) == "node01: power is on\n");
  CHECK(PowerResultText(results[1]) == "node02: failed: the BMC at 10.0.9.2:623 refused the password of user 'admin' "
                                       "(from " + file + ")\n");
  CHECK(PowerResultText(results[2]) == "node03: power is off\n");
  CHECK(PowerResultText(results[3]) == "head01: failed: has no bmc in the inventory\n");
  CHECK(ipmitool.calls.size() == 3);
  for (const auto& argv : ipmitool.calls) {
    for (const std::string& arg : argv) CHECK(arg.find(password) == std::string::npos);
  }
  nlohmann::json json = PowerResultsJson(PowerAction::kStatus, results);
  CHECK(json["action"] == "status");
  CHECK(json["hosts"]["node01"] == nlohmann::json{{"ok", true}, {"message", "power is on"}, {"state", "on"}});
  CHECK(json["hosts"]["node02"]["ok"] == false);
}

TEST_CASE("a password file others may read is refused before ipmitool runs") {
  const std::string file = PasswordFile("pw", 0644);
  Host node01 = HostWithBmc("node01", "10.0.9.1", file);
  FakeIpmitool ipmitool;
  std::vector<PowerResult> results = RunPower({&node01}, PowerAction::kCycle, ipmitool, 1);
  CHECK_FALSE(results[0].ok);
  CHECK(results[0].message == "bmc password file " + file + " may be read by others (mode 0644): chmod 600 it");
  CHECK(ipmitool.calls.empty());
}

TEST_CASE("power sel lists each node's entries; power cycle is confirmed by the BMC") {
  const std::string file = PasswordFile("pw", 0400);
  Host node02 = HostWithBmc("node02", "10.0.9.2", file);
  FakeIpmitool ipmitool;
  ipmitool.answers["10.0.9.2"] = {true, false, 0, Captured("ipmitool-sel-list--ipmi_sim--4-entries--1.txt"), ""};
  std::vector<PowerResult> sel = RunPower({&node02}, PowerAction::kSel, ipmitool, 1);
  REQUIRE(sel[0].ok);
  CHECK(sel[0].sel.size() == 4);
  CHECK(PowerResultText(sel[0]).rfind("node02: 4 SEL entries\n  5 | Pre-Init 0000059009 | Memory #0x01 | "
                                      "Uncorrectable ECC | Asserted\n", 0) == 0);
  CHECK(PowerResultsJson(PowerAction::kSel, sel)["hosts"]["node02"]["sel"][1]["event"] == "Failure detected");

  ipmitool.answers["10.0.9.2"] = {true, false, 0, "Chassis Power Control: Cycle\n", ""};
  std::vector<PowerResult> cycled = RunPower({&node02}, PowerAction::kCycle, ipmitool, 1);
  CHECK(PowerResultText(cycled[0]) == "node02: power cycle requested\n");
  CHECK(ipmitool.calls.back().back() == "cycle");
}

TEST_CASE("the local process runner keeps output and exit status, kills at the deadline, says what did not start") {
  SystemClock clock;
  LocalProcessRunner runner(clock);
  ProcessOutput done = runner.Run({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::seconds(10));
  CHECK(done.started);
  CHECK_FALSE(done.timed_out);
  CHECK(done.exit_code == 3);
  CHECK(done.out == "out\n");
  CHECK(done.err == "err\n");
  ProcessOutput slow = runner.Run({"sleep", "30"}, std::chrono::milliseconds(200));
  CHECK(slow.timed_out);
  CHECK(slow.exit_code == 128 + 9);
  ProcessOutput missing = runner.Run({"clusterctl-no-such-program"}, std::chrono::seconds(1));
  CHECK_FALSE(missing.started);
  CHECK(missing.err.find("cannot run clusterctl-no-such-program") == 0);
}

}  // namespace clusterctl
