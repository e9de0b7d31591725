// Test support for the engine: a deploy run as the command line runs it
// (lock, run record, RunDeployment) on a fleet of fake nodes (fake_fleet.h),
// with a real state store and catalog in a temporary directory.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "controller/engine/deploy_run.h"
#include "controller/engine/fake_fleet.h"
#include "controller/state/test_util.h"
#include "inventory/loader.h"

namespace clusterctl::testing {

using namespace std::chrono_literals;

// node01 the controller, node02 and node03 compute nodes.
inline constexpr const char* kThreeNodeInventory = R"(cluster: t
connection: {user: root}
hosts:
  node01: {address: 10.9.0.1}
  node02: {address: 10.9.0.2}
  node03: {address: 10.9.0.3}
groups:
  controller: {hosts: [node01]}
  compute: {hosts: [node02, node03]}
)";

using Roles = std::map<std::string, std::string>;

class DeployHarness {
 public:
  // `platforms`: a platforms.yaml's text (platforms.h); empty, none (no
  // release is refused).
  explicit DeployHarness(const Roles& roles, const std::string& inventory = kThreeNodeInventory,
                         const std::string& platforms = "") {
    std::filesystem::create_directories(dir_.path() + "/roles");
    for (const auto& [name, text] : roles) Write("roles/" + name + ".yaml", text);
    SetInventory(inventory);
    Diagnostics diagnostics;
    Catalog::Sources sources{{dir_.path() + "/roles"}, {dir_.path()}};
    if (!platforms.empty()) {
      Write("platforms.yaml", platforms);
      sources.platforms_file = dir_.path() + "/platforms.yaml";
    }
    catalog_ = Catalog::Load(sources, diagnostics);
    REQUIRE_MESSAGE(catalog_, diagnostics.ToString());
    for (const Host& host : inventory_->hosts) fleet.Add(host.name);
  }

  void SetInventory(const std::string& text) {
    Write("inventory.yaml", text);
    Diagnostics diagnostics;
    inventory_ = LoadInventory(dir_.path() + "/inventory.yaml", diagnostics);
    REQUIRE_MESSAGE(inventory_, diagnostics.ToString());
  }

  // One deploy as the command line runs it: lock, run record, RunDeployment,
  // end of the run. Fails the test (and exits) if the run does not end.
  DeploymentResult Deploy(DeploymentOptions options = {}, CancelToken* cancel = nullptr) {
    SystemClock clock;
    SystemFilesystemProbe probe;
    auto state = StateStore::OpenForWriting(StatePaths{dir_.path() + "/state"}, {&clock, &probe, "test"});
    REQUIRE_MESSAGE(state.ok(), state.status().message());
    std::vector<std::pair<std::string, std::string>> names;
    for (const Host& h : inventory_->hosts) names.emplace_back(h.name, h.address);
    REQUIRE((*state)->SyncInventoryHosts(names).ok());
    auto run = (*state)->BeginRun("deploy", "test");
    REQUIRE(run.ok());
    std::vector<const Host*> hosts;
    for (const Host& h : inventory_->hosts) hosts.push_back(&h);
    options.execution.reboot_first_probe = waits;
    options.execution.restart_settle_interval = waits;
    options.execution.reboot_probe_interval = waits;
    DeploymentInputs inputs{&*inventory_, &*catalog_, hosts, state->get(), *run, options};
    inputs.clock = run_clock;
    inputs.silences = silences;
    inputs.power = power;
    events = std::make_unique<RecordingListener>();
    CancelToken own;
    CancelToken& token = cancel ? *cancel : own;
    auto future = std::async(std::launch::async, [&] { return RunDeployment(inputs, fleet, *events, token); });
    if (future.wait_for(60s) != std::future_status::ready) {
      std::fprintf(stderr, "FAIL: the deploy did not end within 60 s (a host waits forever)\n");
      std::_Exit(3);
    }
    DeploymentResult result = future.get();
    (*state)->FinishRun(*run, result.converged() ? RunStatus::kOk : RunStatus::kFailed, {});
    return result;
  }

  std::vector<Intent> OpenIntents() {
    SystemClock clock;
    SystemFilesystemProbe probe;
    auto state = StateStore::OpenForWriting(StatePaths{dir_.path() + "/state"}, {&clock, &probe, "test"});
    REQUIRE(state.ok());
    auto intents = (*state)->LoadOpenIntents();
    REQUIRE(intents.ok());
    return *intents;
  }

  // The events of the last run with this "event" name.
  std::vector<nlohmann::json> Events(const std::string& name) const {
    std::vector<nlohmann::json> out;
    for (const auto& e : events->events()) {
      if (e["event"] == name) out.push_back(e);
    }
    return out;
  }

  std::string state_dir() const { return dir_.path() + "/state"; }
  std::string dir() const { return dir_.path(); }

  FakeFleet fleet;
  std::unique_ptr<RecordingListener> events;
  const Clock* run_clock = nullptr;  // the deploy's clock; null: the system clock
  MaintenanceSilences* silences = nullptr;  // the deploy's maintenance silences; null: none
  NodePower* power = nullptr;               // the deploy's way to the BMCs; null: none
  std::chrono::milliseconds waits = 1ms;  // the reboot probes' and restart settling's waits

 private:
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_.path() + "/" + name) << text; }

  TempDir dir_;
  std::optional<Inventory> inventory_;
  std::optional<Catalog> catalog_;
};

inline const HostReport& ReportOf(const DeploymentResult& result, const std::string& host) {
  for (const HostReport& r : result.hosts) {
    if (r.host == host) return r;
  }
  FAIL("no report for " << host);
  static HostReport none;
  return none;
}
// A report of a temporary result would dangle once the statement ends (ASan
// found one in CI): keep the result in a variable first.
const HostReport& ReportOf(DeploymentResult&& result, const std::string& host) = delete;

}  // namespace clusterctl::testing
