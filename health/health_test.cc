// clusterctl-health judged on a fake node: the same check specs as validate,
// Slurm's view of the node from scontrol's text, and what it does to the
// node: drain with the check's reading, resume its own drains, never touch
// an admin's.
#include <map>
#include <sstream>

#include <doctest/doctest.h>

#include "health/health_config.h"
#include "health/health_run.h"
#include "health/slurm_drain.h"
#include "health/textfile.h"
#include "tests/unit/fixture.h"

namespace clusterctl::health {
namespace {

constexpr const char* kSynced =
    "Reference ID    : C0A80001 (192.168.0.1)\nStratum         : 3\n"
    "System time     : 0.000005916 seconds slow of NTP time\nLeap status     : Normal\n";

// Answers by argv[0] (and records every command, scontrol updates included).
class FakeNode : public NodeCommands {
 public:
  std::map<std::string, ToolOutput> answers;
  std::vector<Argv> ran;

  void Answer(const std::string& program, std::string out, int exit_code = 0, std::string err = "") {
    ToolOutput output;
    output.out = std::move(out);
    output.err = std::move(err);
    output.exit_code = exit_code;
    answers[program] = output;
  }
  void SlurmSays(const std::string& state, const std::string& reason = "") {
    Answer("scontrol", "NodeName=node02 Arch=x86_64 CoresPerSocket=1\n   State=" + state + " ThreadsPerCore=1\n" +
                           (reason.empty() ? "" : "   Reason=" + reason + "\n"));
  }
  ToolOutput Run(const Argv& argv, std::chrono::seconds) override {
    ran.push_back(argv);
    if (argv.size() > 1 && argv[0] == "scontrol" && argv[1] == "update") return ToolOutput{};
    auto it = answers.find(argv[0]);
    if (it == answers.end()) {
      ToolOutput missing;
      missing.started = false;
      missing.exit_code = 127;
      return missing;
    }
    return it->second;
  }
  bool Executable(const std::string&) override { return true; }
  std::vector<Argv> Updates() const {
    std::vector<Argv> updates;
    for (const Argv& a : ran) {
      if (a.size() > 1 && a[1] == "update") updates.push_back(a);
    }
    return updates;
  }
};

std::string Config(const std::string& checks, const std::string& vars = "{}") {
  return R"({"version": 1, "node": "node02", "checks": )" + checks + R"(, "vars": )" + vars + "}";
}

nlohmann::json Facts() { return {{"cpu", {{"cpus", 8}}}, {"memory", {{"total_mib", 16000}}}}; }

int Run(FakeNode& node, const std::string& config, std::string* printed = nullptr) {
  std::ostringstream out;
  int rc = RunHealthCheck({}, config, Facts(), node, out);
  if (printed) *printed = out.str();
  return rc;
}

}  // namespace

TEST_CASE("health config: version, node, checks that run on a node; every problem by field") {
  CHECK(ParseHealthConfig(Config(R"(["clock.offset", "node.disk"])")).ok());
  auto bad = ParseHealthConfig(R"({"version": 2, "node": "node02;rm", "checks": ["slurm.srun", 3, "gpu.xyd"]})");
  REQUIRE_FALSE(bad.ok());
  const std::string why = bad.status().message();
  CHECK(why.find("version: 1 is needed") != std::string::npos);
  CHECK(why.find("node: a Slurm node name is needed") != std::string::npos);
  CHECK(why.find("checks[0]: no node check 'slurm.srun' that runs on a node") != std::string::npos);  // cross-node
  CHECK(why.find("checks[1]: a check name is needed") != std::string::npos);
  CHECK(why.find("checks[2]: no node check 'gpu.xyd'") != std::string::npos);
  CHECK_FALSE(ParseHealthConfig("not json").ok());
  CHECK_FALSE(ParseHealthConfig(Config(R"(["clock.offset"])", "[]")).ok());
}

TEST_CASE("health: a failed check drains the node with a reason naming the check; passing again resumes it") {
  FakeNode node;
  node.Answer("chronyc", "", 1, "506 Cannot talk to daemon");
  node.SlurmSays("IDLE");
  std::string printed;
  CHECK(Run(node, Config(R"(["clock.offset"])"), &printed) == 0);
  REQUIRE(node.Updates().size() == 1);
  const Argv drain = node.Updates()[0];
  CHECK(drain[2] == "nodename=node02");
  CHECK(drain[3] == "state=drain");
  CHECK(drain[4].rfind("reason=clusterctl: clock.offset ", 0) == 0);
  CHECK(printed.find("fail clock.offset") != std::string::npos);

  // Next run: still failing, already drained by us for it: nothing to do.
  FakeNode again = node;
  again.ran.clear();
  again.SlurmSays("IDLE+DRAIN", drain[4].substr(7) + " [root@2026-11-26T16:00:00]");
  CHECK(Run(again, Config(R"(["clock.offset"])")) == 0);
  CHECK(again.Updates().empty());

  // chronyd back: resumed.
  FakeNode healed = again;
  healed.ran.clear();
  healed.Answer("chronyc", kSynced);
  CHECK(Run(healed, Config(R"(["clock.offset"])")) == 0);
  REQUIRE(healed.Updates().size() == 1);
  CHECK(healed.Updates()[0][3] == "state=resume");
}

TEST_CASE("health: a check's limit comes from the configuration's vars (the check's own declaration)") {
  // kSynced is 5.916 us off: within the default 100 ms, beyond a 0.005 ms limit.
  FakeNode node;
  node.Answer("chronyc", kSynced);
  node.SlurmSays("IDLE");
  std::string printed;
  CHECK(Run(node, Config(R"(["clock.offset"])", R"({"validate_clock_offset_max_ms": 0.005})"), &printed) == 0);
  CHECK(printed.find("fail clock.offset") != std::string::npos);
  CHECK(printed.find("fail clock.offset: clock offset 5.92 us above") != std::string::npos);
  FakeNode lenient;
  lenient.Answer("chronyc", kSynced);
  lenient.SlurmSays("IDLE");
  CHECK(Run(lenient, Config(R"(["clock.offset"])"), &printed) == 0);
  CHECK(lenient.Updates().empty());
}

TEST_CASE("health: a node an admin drained is never touched, failing or passing") {
  for (const bool failing : {true, false}) {
    FakeNode node;
    node.Answer("chronyc", failing ? "" : kSynced, failing ? 1 : 0);
    node.SlurmSays("IDLE+DRAIN", "bad DIMM, ticket 4711 [admin@2026-11-26T10:00:00]");
    CHECK(Run(node, Config(R"(["clock.offset"])")) == 0);
    CHECK(node.Updates().empty());
  }
}

TEST_CASE("health: Slurm's view unreadable changes nothing (exit 2); a bad configuration judges nothing (exit 1)") {
  FakeNode node;
  node.Answer("chronyc", "", 1);
  node.Answer("scontrol", "", 1, "slurm_load_node error: Unable to contact slurm controller");
  std::string printed;
  CHECK(Run(node, Config(R"(["clock.offset"])"), &printed) == 2);
  CHECK(node.Updates().empty());
  CHECK(printed.find("Unable to contact slurm controller") != std::string::npos);

  FakeNode untouched;
  CHECK(Run(untouched, R"({"version": 1})") == 1);
  CHECK(untouched.ran.empty());
}

TEST_CASE("health: node.disk and node.resources with the same parsers as validate") {
  FakeNode node;
  node.SlurmSays("IDLE");
  node.Answer("df", testing::CapturedFixture("df-output-B1--debian12-5-paths--1.txt"));
  CHECK(Run(node, Config(R"(["node.disk"])", R"({"validate_disk_paths": ["/"], "validate_disk_free_min_gib": 0, "validate_disk_free_min_percent": 0})")) == 0);
  CHECK(node.Updates().empty());

  FakeNode shrunk;
  shrunk.SlurmSays("MIXED");
  CHECK(Run(shrunk, Config(R"(["node.resources"])", R"({"validate_cpus_expected": 16, "validate_memory_mib_expected": 16000, "validate_memory_tolerance_percent": 2})")) == 0);
  REQUIRE(shrunk.Updates().size() == 1);
  CHECK(shrunk.Updates()[0][4] == "reason=clusterctl: node.resources 8 CPUs, 16 expected");
}

TEST_CASE("health: a prerequisite that failed fails the selected check that needs it (it drains, not skips)") {
  FakeNode node;
  node.SlurmSays("IDLE");
  // GPUs on the PCI bus but no nvidia module: gpu.driver fails, gpu.count is not checked.
  nlohmann::json facts = Facts();
  facts["pci"] = {{"gpu_count", 2}};
  std::ostringstream out;
  CHECK(RunHealthCheck({}, Config(R"(["gpu.count"])"), facts, node, out) == 0);
  REQUIRE(node.Updates().size() == 1);
  CHECK(node.Updates()[0][4].find("gpu.count not checked: gpu.driver failed") != std::string::npos);
}

TEST_CASE("drain reasons: printable, bounded, the first failure and how many more") {
  CheckResult a = Fail("gpu.xid", CheckScope::kNode, "node02", "Xid 79 on 0000:3b:00.0\n\x1b[31m");
  CheckResult b = Fail("clock.offset", CheckScope::kNode, "node02", std::string(500, 'x'));
  const std::string one = DrainReason({&a});
  CHECK(one == "clusterctl: gpu.xid Xid 79 on 0000:3b:00.0??[31m");
  const std::string two = DrainReason({&b, &a});
  CHECK(two.size() <= kReasonMax);
  CHECK(two.rfind("clusterctl: clock.offset xxx", 0) == 0);
  CHECK(two.find("... (+1 more)") != std::string::npos);
}

TEST_CASE("textfile: each check's result, the health check's drain and the run's time") {
  NodeHealth health;
  health.results.push_back(Pass("clock.offset", CheckScope::kNode, "node02"));
  health.results.push_back(Fail("node.disk", CheckScope::kNode, "node02", "low"));
  const std::string text = TextfileMetrics(health, true, 1700000000.5);
  CHECK(text.find("clusterctl_health_check_passed{check=\"clock.offset\"} 1\n") != std::string::npos);
  CHECK(text.find("clusterctl_health_check_passed{check=\"node.disk\"} 0\n") != std::string::npos);
  CHECK(text.find("clusterctl_health_drained 1\n") != std::string::npos);
  CHECK(text.find("clusterctl_health_last_run_timestamp_seconds 1700000000.500\n") != std::string::npos);
}

}  // namespace clusterctl::health
