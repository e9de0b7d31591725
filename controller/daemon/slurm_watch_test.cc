#include "controller/daemon/slurm_watch.h"

#include <doctest/doctest.h>

#include <fstream>

#include "common/json_text.h"
#include "controller/engine/fake_fleet.h"
#include "controller/state/test_util.h"
#include "controller/validate/scontrol_nodes.h"
#include "inventory/loader.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// One node of Slurm's JSON (23.02 on: the state an array of the base and its flags).
nlohmann::json JsonNode(const std::string& name, std::vector<std::string> state, const std::string& reason = "") {
  return {{"name", name}, {"state", state}, {"reason", reason}};
}

std::string SlurmJson(const std::vector<nlohmann::json>& nodes) {
  return JsonText({{"meta", {{"slurm", {{"release", "24.11.5"}}}}}, {"errors", nlohmann::json::array()}, {"nodes", nodes}});
}

const char* kHealthReason = "clusterctl: clock.offset chronyd is not running";

// A watch over an inventory with `groups`, its hosts fake nodes that answer
// nothing until a test says what.
struct WatchHarness {
  testing::TempDir dir;
  SystemClock clock;
  SystemFilesystemProbe filesystem;
  testing::FakeFleet fleet;
  std::shared_ptr<const Site> site;
  std::mutex log_mutex;
  std::vector<std::string> log;
  std::unique_ptr<SlurmWatch> watch;

  explicit WatchHarness(const std::string& groups, std::chrono::seconds interval = std::chrono::seconds(60)) {
    const std::string path = dir.path() + "/cluster.yaml";
    std::ofstream(path) << "version: 1\ncluster: t\nhosts:\n  head: {address: 10.9.0.1}\n  head2: {address: 10.9.0.2}\n"
                           "  node01: {address: 10.9.0.3}\n" + groups;
    Diagnostics diagnostics;
    std::optional<Inventory> inventory = LoadInventory(path, diagnostics);
    REQUIRE(inventory);
    auto loaded = std::make_shared<Site>();
    loaded->inventory = std::make_shared<const Inventory>(std::move(*inventory));
    site = loaded;
    for (const char* name : {"head", "head2", "node01"}) fleet.Add(name);
    SlurmWatchOptions options;
    options.interval = interval;
    options.paths.dir = dir.path() + "/state";
    options.clock = &clock;
    options.filesystem = &filesystem;
    options.sessions = &fleet;
    options.log = [this](LogLevel, const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mutex);
      log.push_back(line);
    };
    watch = std::make_unique<SlurmWatch>(options, [this] { return site; });
  }
  void AnswerJson(const std::string& host, const std::string& json, int exit_code = 0) {
    fleet.node(host).commands.Answer(ScontrolShowNodeJsonArgv(), json, exit_code);
  }
  void AnswerText(const std::string& host, const std::string& text, int exit_code = 0) {
    fleet.node(host).commands.Answer(ScontrolShowNodeTextArgv(), text, exit_code);
  }
  SlurmNodesReading Read() {
    watch->ReadNow();
    return watch->Get();
  }
  size_t LogLines() {
    std::lock_guard<std::mutex> lock(log_mutex);
    return log.size();
  }
};

const char* kController = "groups:\n  controller: {hosts: [head]}\n  compute: {hosts: [node01]}\n";

TEST_CASE("DrainedByHealthCheck: the health check's reasons start exactly 'clusterctl: '") {
  CHECK(DrainedByHealthCheck(kHealthReason));
  CHECK(DrainedByHealthCheck("clusterctl: "));
  CHECK_FALSE(DrainedByHealthCheck("clusterctl:clock.offset"));
  CHECK_FALSE(DrainedByHealthCheck("Clusterctl: clock.offset"));
  CHECK_FALSE(DrainedByHealthCheck(" clusterctl: clock.offset"));
  CHECK_FALSE(DrainedByHealthCheck("bad DIMM (clusterctl: said so)"));
  CHECK_FALSE(DrainedByHealthCheck(""));
}

TEST_CASE("TakeSlurmNodes: the nodes that cannot run jobs, by name, the health check's drains told apart") {
  auto parsed = ParseSlurmNodesJson(SlurmJson({JsonNode("node04", {"MIXED"}),
                                               JsonNode("node03", {"DOWN", "DRAIN"}, "bad DIMM [root@2025-01-01]"),
                                               JsonNode("node02", {"IDLE", "DRAIN"}, kHealthReason),
                                               JsonNode("node01", {"IDLE"})}));
  REQUIRE(parsed.ok());
  SlurmNodesReading reading;
  reading.error = "an earlier failure";
  TakeSlurmNodes(reading, parsed->nodes, 1234);
  CHECK(reading.read_at_ms == 1234);
  CHECK(reading.error.empty());
  CHECK(reading.nodes == 4);
  CHECK(reading.unavailable_by_health == 1);
  CHECK(reading.unavailable_other == 1);
  REQUIRE(reading.unavailable.size() == 2);
  CHECK(reading.unavailable[0].name == "node02");
  CHECK(reading.unavailable[0].state == "IDLE+DRAIN");
  CHECK(reading.unavailable[0].reason == kHealthReason);
  CHECK(reading.unavailable[0].drained_by_health);
  CHECK(reading.unavailable[1].name == "node03");
  CHECK(reading.unavailable[1].why.find("down") != std::string::npos);
  CHECK_FALSE(reading.unavailable[1].drained_by_health);

  const nlohmann::json json = SlurmToJson(reading);
  CHECK(json["read_at"] == 1234);
  CHECK(json["tried_at"].is_null());
  CHECK(json["unavailable"][0]["drained_by_health"] == true);
  CHECK(json["unavailable"][1]["reason"] == "bad DIMM [root@2025-01-01]");
  CHECK(json["unlisted"] == 0);
}

TEST_CASE("TakeSlurmNodes: hostile names and reasons are bounded one-line text, and the list is bounded") {
  SlurmNodeState node;
  node.name = std::string(5000, 'n');
  node.state = "IDLE+DRAIN";
  node.why_not = "drained";
  node.reason = "clusterctl: x\n<script>alert(1)</script>\x01\xff\xfe" + std::string(100000, 'r');
  std::vector<SlurmNodeState> nodes(SlurmNodesReading::kMaxListed + 20, node);
  SlurmNodesReading reading;
  TakeSlurmNodes(reading, nodes, 1);
  CHECK(reading.unavailable.size() == SlurmNodesReading::kMaxListed);
  CHECK(reading.unavailable_by_health == SlurmNodesReading::kMaxListed + 20);
  CHECK(SlurmToJson(reading)["unlisted"] == 20);
  const SlurmUnavailableNode& shown = reading.unavailable.front();
  CHECK(shown.name.size() <= 100);
  CHECK(shown.reason.size() <= 200);
  CHECK(shown.reason.find('\n') == std::string::npos);
  CHECK(shown.reason.find('\x01') == std::string::npos);
  CHECK(shown.drained_by_health);  // judged on the whole reason, before it is cut
  CHECK_NOTHROW((void)JsonText(SlurmToJson(reading)));
}

TEST_CASE("slurm watch: no controller group, nothing read and no host contacted") {
  WatchHarness h("groups:\n  compute: {hosts: [node01]}\n");
  const SlurmNodesReading reading = h.Read();
  CHECK_FALSE(reading.configured);
  CHECK(reading.tried_at_ms == 0);
  CHECK(h.fleet.node("head").opens == 0);
  CHECK(SlurmToJson(reading)["configured"] == false);
}

TEST_CASE("slurm watch: reads the controller's JSON") {
  WatchHarness h(kController);
  h.AnswerJson("head", SlurmJson({JsonNode("node01", {"IDLE", "DRAIN"}, kHealthReason)}));
  const SlurmNodesReading reading = h.Read();
  CHECK(reading.configured);
  CHECK(reading.controller == "head");
  CHECK(reading.error == "");
  CHECK(reading.read_at_ms > 0);
  CHECK(reading.tried_at_ms > 0);
  CHECK(reading.read_from == "scontrol show node --json (Slurm 24.11.5)");
  REQUIRE(reading.unavailable.size() == 1);
  CHECK(reading.unavailable[0].drained_by_health);
  CHECK(h.fleet.node("node01").opens == 0);  // only the controller is asked
}

TEST_CASE("slurm watch: an older Slurm without --json is read from the text (a real capture)") {
  WatchHarness h(kController);
  h.AnswerJson("head", "scontrol: unrecognized option '--json'\n", 1);
  h.AnswerText("head", testing::CapturedFixture("scontrol-show-node--1.txt"));
  const SlurmNodesReading reading = h.Read();
  CHECK(reading.error == "");
  CHECK(reading.nodes == 4);
  CHECK(reading.read_from.find("text") != std::string::npos);
  REQUIRE(reading.unavailable.size() == 1);
  CHECK(reading.unavailable[0].name == "oxygen-04");
  CHECK(reading.unavailable[0].reason == "memory issues? [root@2019-01-29T10:42:12]");
  CHECK_FALSE(reading.unavailable[0].drained_by_health);
}

TEST_CASE("slurm watch: garbage from the controller is an error shown; the last good nodes stay, with when") {
  WatchHarness h(kController);
  h.AnswerJson("head", SlurmJson({JsonNode("node01", {"DOWN"}, "Not responding")}));
  const SlurmNodesReading good = h.Read();
  REQUIRE(good.error == "");
  CHECK(h.LogLines() == 0);

  SUBCASE("not JSON, not text") {
    h.AnswerJson("head", std::string("\x7f" "ELF\x01\x02", 6) + std::string(100000, '\xff'));
    h.AnswerText("head", "{[[[garbage");
  }
  SUBCASE("an unknown state") {
    h.AnswerJson("head", SlurmJson({JsonNode("node01", {"EXPLODED"})}));
    h.AnswerText("head", "NodeName=node01 State=EXPLODED\n");
  }
  SUBCASE("scontrol fails: slurmctld is down") {
    h.AnswerJson("head", "slurm_load_node error: Unable to contact slurm controller (connect failure)\n", 1);
    h.AnswerText("head", "slurm_load_node error: Unable to contact slurm controller (connect failure)\n", 1);
  }
  const SlurmNodesReading bad = h.Read();
  CHECK_FALSE(bad.error.empty());
  CHECK(bad.error.rfind("head: scontrol show node", 0) == 0);
  CHECK(bad.error.size() <= 1000);
  CHECK(bad.tried_at_ms >= good.tried_at_ms);
  CHECK(bad.read_at_ms == good.read_at_ms);
  REQUIRE(bad.unavailable.size() == 1);
  CHECK(bad.unavailable[0].reason == "Not responding");
  // Logged once when it starts failing, once when it reads again.
  (void)h.Read();
  CHECK(h.LogLines() == 1);
  h.AnswerJson("head", SlurmJson({JsonNode("node01", {"IDLE"})}));
  const SlurmNodesReading again = h.Read();
  CHECK(again.error == "");
  CHECK(again.unavailable.empty());
  CHECK(h.LogLines() == 2);
}

TEST_CASE("slurm watch: the first controller that answers is read; none answering names each") {
  WatchHarness h("groups:\n  controller: {hosts: [head]}\n  controller_backup: {hosts: [head2]}\n");
  h.fleet.node("head").unreachable = true;
  h.AnswerJson("head2", SlurmJson({JsonNode("node01", {"IDLE"})}));
  SlurmNodesReading reading = h.Read();
  CHECK(reading.error == "");
  CHECK(reading.controller == "head2");
  CHECK(reading.nodes == 1);

  h.fleet.node("head2").unreachable = true;
  reading = h.Read();
  CHECK(reading.error.find("head: ") != std::string::npos);
  CHECK(reading.error.find("head2: ") != std::string::npos);
  CHECK(reading.nodes == 1);  // from the last good reading
}

TEST_CASE("slurm watch: its thread reads at start and Stop abandons a reading in flight") {
  WatchHarness h(kController, std::chrono::seconds(3600));
  h.AnswerJson("head", SlurmJson({JsonNode("node01", {"IDLE"})}));
  h.watch->Start();
  for (int i = 0; i < 100 && h.watch->Get().read_at_ms == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(h.watch->Get().nodes == 1);
  h.watch->Stop();

  WatchHarness slow(kController, std::chrono::seconds(3600));
  slow.fleet.node("head").answer_delay = [](const agent_protocol::IncomingRequest&) { return std::chrono::milliseconds(600000); };
  slow.watch->Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  slow.watch->Stop();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

}  // namespace
}  // namespace clusterctl
