// The engine's maintenance silences (issue 38): a node the deploy reboots
// is silenced before the reboot and the silence ends once its run is over;
// a monitoring system that cannot be reached never stops the maintenance.
#include "controller/engine/maintenance_silences.h"

#include <mutex>

#include "common/strings.h"
#include "controller/engine/kinds/recording_kind_host.h"  // RunTask
#include "controller/engine/monitoring_api.h"
#include "controller/remote/sleep.h"

#include <doctest/doctest.h>

#include "controller/engine/alertmanager_silences.h"
#include "controller/engine/deploy_harness.h"
#include "tests/unit/test_paths.h"

namespace clusterctl::testing {
namespace {

const char* kKernelRole = R"(description: a boot setting that needs a reboot
applies_to: [compute]
steps:
  - name: cmdline
    file: {path: /etc/default/grub.d/iommu.cfg, content: "iommu=pt\n"}
  - name: reboot
    reboot: {reason: the new kernel command line}
  - name: after the reboot
    file: {path: /etc/after-reboot, content: "checked\n"}
)";

// A driver change: the node drained (a maintenance step), changed, rebooted.
const char* kDrainRole = R"(description: a change that takes the node out of service
applies_to: [compute]
steps:
  - name: drain
    maintenance: true
    command: {argv: [/usr/local/lib/clusterctl/slurm-maintenance, drain]}
  - name: cmdline
    file: {path: /etc/default/grub.d/iommu.cfg, content: "iommu=pt\n"}
  - name: reboot
    reboot: {reason: the new kernel command line}
  - name: after the reboot
    file: {path: /etc/after-reboot, content: "checked\n"}
)";

// Records each call with the node's reboots and files at that moment.
class FakeSilences final : public MaintenanceSilences {
 public:
  explicit FakeSilences(FakeFleet& fleet) : fleet_(fleet) {}

  Task<Result<std::string>> Open(const std::string& host, const std::string& comment, int64_t ends_at_ms) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!reachable) co_return Status::Unavailable("POST http://10.9.0.1:9093/api/v2/silences: Connection refused");
    calls.push_back("open " + host + " after " + std::to_string(fleet_.node(host).reboots) + " reboots: " + comment);
    ends.push_back(ends_at_ms);
    size_t applied = 0;
    for (const auto& [resource, times] : fleet_.node(host).applied) applied += static_cast<size_t>(times);
    applied_at_open.push_back(applied);
    co_return "silence-" + host;
  }

  Task<Status> Close(const std::string& host, const std::string& id, int64_t /*opened_at_ms*/,
                     WaitReport& /*wait*/) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool checked = fleet_.node(host).files.count("/etc/after-reboot") > 0;
    calls.push_back("close " + id + " after " + std::to_string(fleet_.node(host).reboots) + " reboots" +
                    (checked ? ", its steps done" : ""));
    co_return Status::Ok();
  }

  bool reachable = true;
  std::vector<std::string> calls;
  std::vector<int64_t> ends;
  std::vector<size_t> applied_at_open;  // the node's changes other than files and services, at each open

 private:
  FakeFleet& fleet_;
  std::mutex mutex_;
};

TEST_CASE("a node the deploy reboots is silenced before the reboot, until its run is over") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  FakeSilences silences(h.fleet);
  h.silences = &silences;
  const int64_t before = SystemClock().NowMs();
  REQUIRE(h.Deploy().converged());
  std::vector<std::string> calls = silences.calls;
  std::sort(calls.begin(), calls.end());
  CHECK(calls == std::vector<std::string>{
                     "close silence-node02 after 1 reboots, its steps done",
                     "close silence-node03 after 1 reboots, its steps done",
                     "open node02 after 0 reboots: clusterctl: rebooting kernel/reboot",
                     "open node03 after 0 reboots: clusterctl: rebooting kernel/reboot",
                 });
  // It ends by itself after the reboot's timeout (900 s) and the margin (30 min), should the run die.
  for (int64_t end : silences.ends) CHECK((end >= before + 2700000 && end < before + 2760000));
  bool noted = false;
  for (const nlohmann::json& note : h.Events("note")) {
    noted = noted || note["message"] == "alerts of node02 silenced in Alertmanager (silence silence-node02, ending by "
                                        "itself in 45 min at the latest)";
  }
  CHECK(noted);

  silences.calls.clear();
  REQUIRE(h.Deploy().converged());  // no reboot owed: no silence
  CHECK(silences.calls.empty());
}

TEST_CASE("a maintenance step (a drain) opens the silence before it changes anything; the reboot keeps it") {
  DeployHarness h(Roles{{"drain", kDrainRole}});
  FakeSilences silences(h.fleet);
  h.silences = &silences;
  const int64_t before = SystemClock().NowMs();
  REQUIRE(h.Deploy().converged());
  std::vector<std::string> calls = silences.calls;
  std::sort(calls.begin(), calls.end());
  CHECK(calls == std::vector<std::string>{
                     "close silence-node02 after 1 reboots, its steps done",
                     "close silence-node03 after 1 reboots, its steps done",
                     "open node02 after 0 reboots: clusterctl: maintenance: drain/drain",
                     "open node03 after 0 reboots: clusterctl: maintenance: drain/drain",
                 });
  CHECK(silences.applied_at_open == std::vector<size_t>{0, 0});  // opened before the drain ran
  CHECK(h.fleet.node("node02").applied.begin()->second == 1);
  // It would end by itself after the step's timeout (the run's: 1 h), the reboot's (900 s) and the margin (30 min).
  for (int64_t end : silences.ends) CHECK((end >= before + 6300000 && end < before + 6360000));

  silences.calls.clear();
  REQUIRE(h.Deploy(DeploymentOptions{.verify = true}).converged());  // checked again, nothing to drain: no silence
  CHECK(silences.calls.empty());
}

TEST_CASE("plan silences nothing") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  FakeSilences silences(h.fleet);
  h.silences = &silences;
  DeploymentOptions plan;
  plan.check = true;
  REQUIRE(h.Deploy(plan).converged());
  CHECK(silences.calls.empty());
  CHECK(h.fleet.node("node02").reboots == 0);
}

TEST_CASE("an Alertmanager that cannot be reached does not stop the reboot: a note says why") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  FakeSilences silences(h.fleet);
  silences.reachable = false;
  h.silences = &silences;
  REQUIRE(h.Deploy().converged());
  CHECK(h.fleet.node("node02").reboots == 1);
  CHECK(h.fleet.node("node03").reboots == 1);
  CHECK(silences.calls.empty());  // nothing opened, nothing to end
  bool noted = false;
  for (const nlohmann::json& note : h.Events("note")) {
    noted = noted || (note["host"] == "node03" &&
                      note["message"] == "alerts of node03 are not silenced (POST http://10.9.0.1:9093/api/v2/silences: "
                                         "Connection refused); the maintenance goes ahead");
  }
  CHECK(noted);
}


// Where the deploy reaches Alertmanager and Prometheus: the first monitoring host.
std::optional<AlertmanagerSite> SiteOf(const std::string& inventory_text) {
  TempDir dir;
  std::ofstream(dir.path() + "/inventory.yaml") << inventory_text;
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(dir.path() + "/inventory.yaml", diagnostics);
  REQUIRE_MESSAGE(inventory, diagnostics.ToString());
  std::optional<Catalog> catalog =
      Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, diagnostics);
  REQUIRE_MESSAGE(catalog, diagnostics.ToString());
  return FindAlertmanager(*inventory, *catalog);
}

TEST_CASE("the deploy silences nodes in the first monitoring host's Alertmanager, or nowhere without one") {
  const std::string hosts = R"(cluster: gpu-a
connection: {user: root}
hosts:
  mon1: {address: 10.0.0.5}
  mon2: {address: 10.0.0.6}
  gpu01: {address: 10.0.0.11}
groups:
  compute: {hosts: [gpu01]}
)";
  CHECK_FALSE(SiteOf(hosts).has_value());  // no monitoring host: nothing is silenced
  std::optional<AlertmanagerSite> site = SiteOf(hosts + "  monitoring: {hosts: [mon1, mon2]}\n");
  REQUIRE(site);
  CHECK(site->cluster == "gpu-a");
  CHECK(site->target.address == "10.0.0.5");
  CHECK(site->target.port == 9093);
  CHECK(site->prometheus.address == "10.0.0.5");
  CHECK(site->prometheus.port == 9090);
  site = SiteOf(hosts + "  monitoring: {hosts: [mon1], vars: {alertmanager_listen: '[fd00::5]:9193', "
                        "prometheus_listen: '0.0.0.0:9190'}}\n");
  REQUIRE(site);
  CHECK(site->target.address == "fd00::5");
  CHECK(site->target.port == 9193);
  CHECK(site->prometheus.address == "10.0.0.5");  // every address: the host's own
  CHECK(site->prometheus.port == 9190);
}

// Alertmanager and Prometheus as AlertmanagerSilences reaches them: the
// node's health when the silence opens (`health`, empty: Prometheus does
// not answer), then what is unhealthy at each poll (`polls`, the last one
// repeating). Replies as Prometheus 2.42 writes them (trimmed).
struct FakeMonitoring {
  std::string health;
  std::vector<std::string> polls;
  std::vector<std::string> requests;  // "METHOD path", unhealthy polls as "GET unhealthy"

  HttpCall Call() {
    return [this](HttpTarget /*target*/, std::string method, std::string path, std::string /*body*/,
                  std::chrono::milliseconds /*timeout*/) -> Task<Result<HttpReply>> {
      if (path == NodeHealthTarget("node02")) {
        requests.push_back("GET health");
        if (health.empty()) co_return Status::Unavailable("GET http://10.9.0.1:9090: Connection refused");
        co_return HttpReply{200, health};
      }
      if (path == UnhealthyTarget("node02", kNowMs / 1000 + back_at_s)) {
        requests.push_back("GET unhealthy");
        const size_t i = std::min(unhealthy_polls++, polls.size() - 1);
        co_return HttpReply{200, polls[i]};
      }
      requests.push_back(method + " " + path);
      if (method == "POST") co_return HttpReply{200, R"({"silenceID":"5f0c2a5e"})"};
      co_return HttpReply{200, ""};
    };
  }

  static constexpr int64_t kNowMs = 1795733284000;
  FakeClock clock{kNowMs};
  int64_t back_at_s = 0;  // when Close began, as seconds after kNowMs
  size_t unhealthy_polls = 0;
};

std::string Reply(const std::vector<std::pair<std::string, std::string>>& series) {
  std::string result;
  for (const auto& [metric, value] : series) {
    result += std::string(result.empty() ? "" : ",") + R"({"metric":)" + metric + R"(,"value":[1795733301.1,")" +
              value + R"("]})";
  }
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + result + "]}}";
}
const char* kNodeTarget = R"({"__name__":"up","instance":"10.9.0.2:9100","job":"node","node":"node02"})";
const char* kDcgmTarget = R"({"__name__":"up","instance":"10.9.0.2:9400","job":"dcgm","node":"node02"})";
const char* kNodeDown = R"({"__name__":"ALERTS","alertname":"NodeDown","alertstate":"firing","node":"node02"})";
const char* kMountMissing = R"({"__name__":"ALERTS","alertname":"MountMissing","alertstate":"firing","node":"node02"})";

// One silence of node02 opened and closed through AlertmanagerSilences on
// `monitoring` (clear_wait 60 s, polls every 2 s on its fake clock); the
// wait's events in words.
std::vector<std::string> OpenAndClose(FakeMonitoring& monitoring) {
  AlertmanagerSite site;
  site.cluster = "t";
  std::unique_ptr<MaintenanceSilences> silences = MakeAlertmanagerSilences(site, monitoring.clock, monitoring.Call());
  std::vector<std::string> told;
  RunTask([&]() -> Task<bool> {
    Result<std::string> id = co_await silences->Open("node02", "clusterctl: rebooting kernel/reboot",
                                                     FakeMonitoring::kNowMs + 3600000);
    REQUIRE(id.ok());
    monitoring.clock.Advance(std::chrono::seconds(30));  // the reboot
    monitoring.back_at_s = 30;
    WaitReport wait([&](const WaitEvent& e) { told.push_back(WaitText(e)); }, monitoring.clock, "node02",
                    "Prometheus to see node02 healthy", std::chrono::milliseconds(0));
    Status closed = co_await silences->Close("node02", *id, FakeMonitoring::kNowMs, wait);
    CHECK(closed.ok());
    co_return true;
  }());
  CHECK(monitoring.requests.front() == "GET health");  // asked before the silence opened
  CHECK(monitoring.requests.at(1) == "POST /api/v2/silences");
  CHECK(monitoring.requests.back() == "DELETE /api/v2/silence/5f0c2a5e");  // ended in every case
  return told;
}

TEST_CASE("an alert already firing when the silence opened does not hold it; one the maintenance raised does") {
  FakeMonitoring monitoring;
  monitoring.health = Reply({{kNodeTarget, "1"}, {kMountMissing, "1"}});
  monitoring.polls = {Reply({{kMountMissing, "1"}, {kNodeDown, "1"}}), Reply({{kMountMissing, "1"}, {kNodeDown, "1"}}),
                      Reply({{kMountMissing, "1"}})};
  const std::vector<std::string> told = OpenAndClose(monitoring);
  CHECK(monitoring.unhealthy_polls == 3);  // until NodeDown resolved, never for MountMissing
  CHECK(told == std::vector<std::string>{"waiting for Prometheus to see node02 healthy",
                                         "still waiting for Prometheus to see node02 healthy (0.0 s): alert NodeDown",
                                         "still waiting for Prometheus to see node02 healthy (2.0 s): alert NodeDown",
                                         "waited 6.0 s for Prometheus to see node02 healthy"});
}

TEST_CASE("a failure the maintenance left holds the silence until the bound, then it ends with a warning naming it") {
  FakeMonitoring monitoring;
  monitoring.health = Reply({{kNodeTarget, "1"}, {kDcgmTarget, "1"}});
  monitoring.polls = {Reply({{kDcgmTarget, "0"}, {kNodeDown, "1"}})};
  const std::vector<std::string> told = OpenAndClose(monitoring);
  REQUIRE_FALSE(told.empty());
  CHECK(told.back() == "gave up waiting for Prometheus to see node02 healthy after 60.0 s: alert NodeDown, "
                       "dcgm (10.9.0.2:9400) down");
  CHECK(monitoring.unhealthy_polls == 31);  // every 2 s for 60 s, and the one that found the bound reached
}

TEST_CASE("a target down or absent before the silence (never up yet: a first deploy) does not hold it") {
  FakeMonitoring monitoring;
  monitoring.health = Reply({{kNodeTarget, "1"}, {kDcgmTarget, "0"}});
  const char* slurm_not_scraped = R"({"instance":"10.9.0.1:9341","job":"slurm","node":"node02"})";
  monitoring.polls = {Reply({{kDcgmTarget, "0"}, {slurm_not_scraped, "1795733200"}})};
  const std::vector<std::string> told = OpenAndClose(monitoring);
  CHECK(monitoring.unhealthy_polls == 1);
  CHECK(told == std::vector<std::string>{"waiting for Prometheus to see node02 healthy",
                                         "waited 2.0 s for Prometheus to see node02 healthy"});
}

TEST_CASE("without Prometheus when the silence opened (a first deploy brings it up later), nothing holds it") {
  FakeMonitoring monitoring;  // no health: Prometheus refuses
  monitoring.polls = {Reply({{kNodeDown, "1"}})};
  const std::vector<std::string> told = OpenAndClose(monitoring);
  CHECK(monitoring.unhealthy_polls == 0);
  CHECK(monitoring.requests.size() == 3);  // health, POST, DELETE
}

TEST_CASE("the wait's bound is the role alertmanager's maintenance_silence_clear_wait, 60 s unless raised") {
  const std::string inventory = R"(cluster: gpu-a
connection: {user: root}
hosts:
  mon1: {address: 10.0.0.5}
groups:
  monitoring: {hosts: [mon1]}
)";
  std::optional<AlertmanagerSite> site = SiteOf(inventory);
  REQUIRE(site);
  CHECK(site->clear_wait == std::chrono::seconds(60));
  site = SiteOf(inventory + "vars: {maintenance_silence_clear_wait: 5m30s}\n");
  REQUIRE(site);
  CHECK(site->clear_wait == std::chrono::seconds(330));
}

// The engine's side: what Close says of its wait reaches the run's events,
// and its end the state's events (history --run N), a warning when it gave up.
class GivingUpSilences final : public MaintenanceSilences {
 public:
  Task<Result<std::string>> Open(const std::string& host, const std::string&, int64_t) override {
    co_return "silence-" + host;
  }
  Task<Status> Close(const std::string&, const std::string&, int64_t, WaitReport& wait) override {
    co_await SleepFor(*clock, std::chrono::seconds(61));
    wait.GaveUp("alert NodeDown");
    co_return Status::Ok();
  }
  const Clock* clock = nullptr;
};

TEST_CASE("a silence's wait and a reboot's are told as they go and kept with their durations in the run's history") {
  DeployHarness h(Roles{{"kernel", kKernelRole}});
  FakeClock clock;
  GivingUpSilences silences;
  silences.clock = &clock;
  h.silences = &silences;
  h.run_clock = &clock;
  h.waits = std::chrono::milliseconds(1500);  // the reboot's first probe: the wait lasts over a second
  REQUIRE(h.Deploy().converged());
  std::vector<std::string> phases;
  for (const nlohmann::json& wait : h.Events("wait")) {
    if (wait["host"] != "node02") continue;
    phases.push_back(wait["phase"].get<std::string>() + " " + wait["waiting_for"].get<std::string>());
  }
  CHECK(phases == std::vector<std::string>{
                      "started the node to come back from kernel/reboot (a new boot id)",
                      "ended the node to come back from kernel/reboot (a new boot id)",
                      "started Prometheus to see node02 healthy before its maintenance silence ends",
                      "gave up Prometheus to see node02 healthy before its maintenance silence ends",
                  });
  SystemClock system;
  SystemFilesystemProbe probe;
  auto state = StateStore::OpenForWriting(StatePaths{h.state_dir()}, {&system, &probe, "test"});
  REQUIRE(state.ok());
  auto runs = (*state)->ListRuns(1);
  REQUIRE((runs.ok() && runs->size() == 1));
  auto events = (*state)->EventsOfRun(runs->front().id);
  REQUIRE(events.ok());
  std::vector<std::pair<std::string, std::string>> kept;  // level, message
  for (const nlohmann::json& e : *events) {
    if (e["kind"] == "wait" && e["host"] == "node02") kept.emplace_back(e["level"], e["message"]);
  }
  // Durations on the fake clock that both hosts move on: at least their own waits.
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].first == "info");
  CHECK(kept[0].second.rfind("waited ", 0) == 0);
  CHECK(EndsWith(kept[0].second, " s for the node to come back from kernel/reboot (a new boot id)"));
  CHECK(kept[1].first == "warning");
  CHECK(kept[1].second.rfind("gave up waiting for Prometheus to see node02 healthy before its maintenance silence "
                             "ends after ", 0) == 0);
  CHECK(EndsWith(kept[1].second, " s: alert NodeDown"));
}
}  // namespace
}  // namespace clusterctl::testing
