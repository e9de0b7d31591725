// The engine's maintenance silences (issue 38): a node the deploy reboots
// is silenced before the reboot and the silence ends once its run is over;
// a monitoring system that cannot be reached never stops the maintenance.
#include "controller/engine/maintenance_silences.h"

#include <mutex>

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

  Task<Status> Close(const std::string& host, const std::string& id, int64_t /*opened_at_ms*/) override {
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
}  // namespace
}  // namespace clusterctl::testing
