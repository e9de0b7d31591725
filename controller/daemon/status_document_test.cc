#include "controller/daemon/status_document.h"

#include <doctest/doctest.h>

#include <fstream>

#include "controller/daemon/metrics.h"
#include "controller/daemon/state_view.h"
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

HostRecord Record(const std::string& name, HostStatus status, int64_t at, bool drifted = false) {
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

TEST_CASE("a host's facts summary marks the testbed's simulated driver") {
  nlohmann::json facts = {{"nvidia_driver", "550.144.03"}, {"nvidia", {{"simulated", true}}}};
  CHECK(SummarizeFacts(facts) == nlohmann::json({{"nvidia_driver", "550.144.03"}, {"nvidia_driver_simulated", true}}));
  facts["nvidia"]["simulated"] = false;
  CHECK(SummarizeFacts(facts) == nlohmann::json({{"nvidia_driver", "550.144.03"}}));
}

TEST_CASE("host health: the newest of the last run and the last drift check decides") {
  const Inventory inventory = TwoHosts();
  StateSnapshot state;
  state.hosts = {Record("node01", HostStatus::kOk, 1000), Record("node02", HostStatus::kFailed, 1000)};

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
  state.hosts = {Record("node01", HostStatus::kOk, 1000), Record("node02", HostStatus::kOk, 1000)};
  const std::vector<HostView> views = BuildHostViews(inventory, state, {{"node02", Check(2000, true, 2)}});
  const nlohmann::json host = HostToJson(views[1]);
  CHECK(host["health"] == "drifted");
  CHECK(host["drift"]["steps"].size() == 2);
  CHECK(host["drift"]["steps"][0]["why"][0] == "not running (inactive)");
}

TEST_CASE("status document and metrics: the Slurm watch's reading, stale and with its error") {
  Site site;
  site.inventory = std::make_shared<const Inventory>(TwoHosts());
  StateSnapshot state;
  DriftBook drift;
  EventHub hub;
  JobRunner jobs(JobEnvironment{}, hub, drift);
  SlurmNodesReading slurm;
  slurm.configured = true;
  slurm.controller = "node01";
  slurm.interval_s = 60;
  SlurmNodeState drained;
  drained.name = "node02";
  drained.state = "IDLE+DRAIN";
  drained.why_not = "drained";
  drained.reason = "clusterctl: gpu.xid 79 on 0000:3b:00.0";
  TakeSlurmNodes(slurm, {drained}, 1000);
  slurm.tried_at_ms = 61000;  // the next attempt failed: the nodes are from 1000
  slurm.error = "node01: scontrol show node: exit 1: slurm_load_node error: Unable to contact slurm controller";

  const nlohmann::json document = BuildStatusDocument(site, state, drift, jobs, DaemonFacts{}, slurm);
  CHECK(document["api_version"] == 1);
  const nlohmann::json& s = document["slurm"];
  CHECK(s["read_at"] == 1000);
  CHECK(s["tried_at"] == 61000);
  CHECK(s["error"].get<std::string>().find("Unable to contact") != std::string::npos);
  CHECK(s["nodes"] == 1);
  CHECK(s["unavailable_by_health"] == 1);
  CHECK(s["unavailable"][0]["reason"] == "clusterctl: gpu.xid 79 on 0000:3b:00.0");

  RequestCounters requests;
  const std::string metrics = RenderMetrics(site, state, drift, jobs, DaemonFacts{}, requests, slurm);
  CHECK(metrics.find("clusterctl_slurm_nodes_unavailable{drained_by=\"health\"} 1\n") != std::string::npos);
  CHECK(metrics.find("clusterctl_slurm_read_ok 0\n") != std::string::npos);  // the last attempt failed
  CHECK(metrics.find("clusterctl_slurm_read_timestamp_seconds 1\n") != std::string::npos);
  // Without a Slurm controller in the inventory there are no Slurm families.
  CHECK(RenderMetrics(site, state, drift, jobs, DaemonFacts{}, requests, SlurmNodesReading{}).find("clusterctl_slurm") ==
        std::string::npos);
  CHECK(BuildStatusDocument(site, state, drift, jobs, DaemonFacts{}, SlurmNodesReading{})["slurm"]["configured"] == false);
}

}  // namespace
}  // namespace clusterctl
