#include "controller/daemon/status_document.h"

#include <doctest/doctest.h>

#include <fstream>

#include "controller/state/test_util.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

Inventory TwoHosts() {
  testing::TempDir dir;
  const std::string path = dir.path() + "/cluster.yaml";
  std::ofstream(path) << "version: 1\ncluster: t\nhosts:\n  node[01-02]:\n    address: 10.0.0.[1-2]\n";
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(path, diagnostics);
  REQUIRE(inventory);
  return std::move(*inventory);
}

HostRecord Record(const std::string& name, const std::string& status, int64_t at, bool drifted = false) {
  HostRecord r;
  r.name = name;
  r.status = status;
  r.last_status_at = at;
  r.drifted = drifted;
  return r;
}

HostDrift Check(int64_t at, bool reached, int steps) {
  HostDrift d;
  d.checked_at_ms = at;
  d.reached = reached;
  for (int i = 0; i < steps; ++i) d.steps.push_back({"chrony/service chrony", {"not running (inactive)"}});
  return d;
}

std::string HealthOf(const std::vector<HostView>& views, const std::string& name) {
  for (const HostView& v : views) {
    if (v.row.name == name) return v.health;
  }
  return "?";
}

TEST_CASE("host health: the newest of the last run and the last drift check decides") {
  const Inventory inventory = TwoHosts();
  StateSnapshot state;
  state.hosts = {Record("node01", "ok", 1000), Record("node02", "failed", 1000)};

  CHECK(HealthOf(BuildHostViews(inventory, state, {}), "node01") == "converged");
  CHECK(HealthOf(BuildHostViews(inventory, state, {}), "node02") == "failed");
  // A check after the run found a step that would change: drifted.
  CHECK(HealthOf(BuildHostViews(inventory, state, {{"node01", Check(2000, true, 1)}}), "node01") == "drifted");
  // A deploy after that check converged it (from a shell, say): converged.
  state.hosts[0].last_status_at = 3000;
  CHECK(HealthOf(BuildHostViews(inventory, state, {{"node01", Check(2000, true, 1)}}), "node01") == "converged");
  // The state's own flag when the daemon has not checked yet (it restarted).
  state.hosts[0].drifted = true;
  CHECK(HealthOf(BuildHostViews(inventory, state, {}), "node01") == "drifted");
  // A clean check after the flag was set clears it.
  CHECK(HealthOf(BuildHostViews(inventory, state, {{"node01", Check(4000, true, 0)}}), "node01") == "converged");
  // A converged host the last check could not reach.
  state.hosts[0].drifted = false;
  CHECK(HealthOf(BuildHostViews(inventory, state, {{"node01", Check(4000, false, 0)}}), "node01") == "unreachable");
}

TEST_CASE("status document: groups collapse their hosts and count each health") {
  const Inventory inventory = TwoHosts();
  StateSnapshot state;
  state.hosts = {Record("node01", "ok", 1000), Record("node02", "ok", 1000)};
  const std::vector<HostView> views = BuildHostViews(inventory, state, {{"node02", Check(2000, true, 2)}});
  const nlohmann::json host = HostToJson(views[1]);
  CHECK(host["health"] == "drifted");
  CHECK(host["drift"]["steps"].size() == 2);
  CHECK(host["drift"]["steps"][0]["why"][0] == "not running (inactive)");
}

}  // namespace
}  // namespace clusterctl
