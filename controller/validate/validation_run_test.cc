// RunValidation as a whole, on a fleet of fake nodes (controller/engine/
// fake_fleet.h): no choice of --limit and --checks crashes it, and a run that
// could read nothing never passes (docs/validation.md, "No reading, no pass").
// The fake nodes answer every command with exit 0 and no output, which no
// parser accepts: every check that runs has output it does not understand.
#include "controller/validate/validation_run.h"

#include <doctest/doctest.h>

#include <fstream>

#include "common/strings.h"
#include "controller/engine/fake_fleet.h"
#include "controller/state/test_util.h"
#include "controller/validate/checks.h"
#include "inventory/host_selection.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

// The controller and login node outside the compute group, as on a DGX
// cluster's head nodes, and a monitoring host in no Slurm group.
const char* kInventory = R"(cluster: t
connection: {user: root}
hosts:
  head: {address: 10.9.0.1}
  login01: {address: 10.9.0.2}
  dgx01: {address: 10.9.0.3}
  dgx02: {address: 10.9.0.4}
  storage: {address: 10.9.0.5}
groups:
  controller: {hosts: [head]}
  login: {hosts: [login01]}
  compute: {hosts: [dgx01, dgx02]}
  monitoring: {hosts: [storage]}
)";

class ValidationHarness {
 public:
  ValidationHarness() {
    std::ofstream(dir_.path() + "/inventory.yaml") << kInventory;
    Diagnostics diagnostics;
    inventory_ = LoadInventory(dir_.path() + "/inventory.yaml", diagnostics);
    REQUIRE_MESSAGE(inventory_, diagnostics.ToString());
    for (const Host& host : inventory_->hosts) {
      bool dgx = host.name.rfind("dgx", 0) == 0;
      testing::FakeNode& node = fleet_.Add(host.name);
      node.facts = testing::FakeFacts(host.name, dgx ? 8 : 0);
      if (dgx) {
        node.facts["modules"] = {"nvidia", "nvidia_peermem"};
        node.facts["nvidia_driver"] = "550.54.15";
        node.facts["ib_ports"] = {{{"device", "mlx5_0"}, {"port", 1}, {"state", "4: ACTIVE"},
                                   {"phys_state", "5: LinkUp"}, {"rate_gbps", 400}, {"rate_text", "400 Gb/sec"},
                                   {"link_layer", "InfiniBand"}}};
      }
    }
  }

  void AllUnreachable() {
    for (const Host& host : inventory_->hosts) fleet_.node(host.name).unreachable = true;
  }

  ValidationOutcome Validate(const std::string& limit, const std::vector<std::string>& checks) {
    auto selected = SelectHosts(*inventory_, limit);
    REQUIRE_MESSAGE(selected.ok(), selected.status().message());
    auto selection = CheckSelection::Parse(checks);
    REQUIRE_MESSAGE(selection.ok(), selection.status().message());
    ValidationInputs inputs;
    inputs.inventory = &*inventory_;
    inputs.selected = *selected;
    for (const Host& host : inventory_->hosts) inputs.thresholds[host.name] = Thresholds{};
    inputs.checks = *selection;
    inputs.run_on = [this](const std::vector<const Host*>& hosts, const RemoteRunner::HostBody& body) {
      return RunOn(hosts, body);
    };
    return RunValidation(inputs);
  }

 private:
  // As RemoteRunner::Run does, on the fake fleet.
  std::vector<HostResult> RunOn(const std::vector<const Host*>& hosts, const RemoteRunner::HostBody& body) {
    std::vector<HostResult> results(hosts.size());
    fleet_.ForEach(hosts.size(), [&](size_t i) -> Task<void> {
      HostResult& result = results[i];
      result.host = hosts[i];
      try {
        OpenedSession opened = co_await fleet_.Open(*hosts[i], nullptr);
        if (!opened.session) {
          result.state = opened.unreachable ? HostResult::State::kUnreachable : HostResult::State::kFailed;
          result.error = opened.status.message();
          co_return;
        }
        co_await body(*opened.session, result);
        co_await opened.session->Close(std::chrono::steady_clock::now() + std::chrono::seconds(5));
      } catch (const std::exception& e) {
        result.state = HostResult::State::kFailed;
        result.error = std::string("internal error: ") + e.what();
      }
    });
    return results;
  }

  testing::TempDir dir_;
  std::optional<Inventory> inventory_;
  testing::FakeFleet fleet_;
};

int Count(const ValidationOutcome& outcome, CheckOutcome which) {
  int n = 0;
  for (const CheckResult& r : outcome.results) n += r.outcome == which;
  return n;
}

// Every --checks selection an admin may write: all, each prefix, each check, one left out.
std::vector<std::vector<std::string>> EverySelection() {
  std::vector<std::vector<std::string>> selections = {{}, {"!nccl"}, {"gpu", "ib"}};
  for (const std::string& prefix : CheckPrefixes()) selections.push_back({prefix});
  for (const std::string& check : AllCheckNames()) selections.push_back({check});
  return selections;
}

const std::vector<std::string> kLimits = {"all", "head", "login01", "dgx01", "storage", "compute", "!compute",
                                          "dgx01,storage", "login01,dgx02"};

}  // namespace

TEST_CASE("validate: every --limit with every --checks runs to its end on a fleet that answers nonsense") {
  ValidationHarness harness;
  for (const std::string& limit : kLimits) {
    for (const auto& checks : EverySelection()) {
      CAPTURE(limit);
      CAPTURE(Join(checks, ","));
      ValidationOutcome outcome;
      CHECK_NOTHROW(outcome = harness.Validate(limit, checks));
      // Output nothing understands is never a pass. (gpu.driver and ib.peermem
      // read the facts, which these fake nodes give well formed.)
      for (const CheckResult& r : outcome.results) {
        bool reads_output = (r.check.rfind("gpu.", 0) == 0 && r.check != "gpu.driver") || r.check == "ib.ports" ||
                            r.check == "clock.offset" || r.check == "slurm.controller";
        if (reads_output) CHECK_MESSAGE(r.outcome != CheckOutcome::kPass, r.check << " on " << r.subject << ": " << r.detail);
      }
    }
  }
}

TEST_CASE("validate: the controller outside --limit and no Slurm check selected (issue 30, 1)") {
  // `validate INV --limit dgx01 --checks gpu` looked up a controller probe never made (std::out_of_range).
  ValidationHarness harness;
  ValidationOutcome outcome;
  REQUIRE_NOTHROW(outcome = harness.Validate("dgx01", {"gpu"}));
  CHECK(Count(outcome, CheckOutcome::kFail) > 0);  // the fake's empty nvidia-smi is no reading
  for (const CheckResult& r : outcome.results) CHECK(r.subject == "dgx01");
}

TEST_CASE("validate: every host unreachable fails the run whatever --checks selects (issue 30, 2)") {
  ValidationHarness harness;
  harness.AllUnreachable();
  for (const auto& checks : EverySelection()) {
    CAPTURE(Join(checks, ","));
    ValidationOutcome outcome = harness.Validate("all", checks);
    CHECK(Count(outcome, CheckOutcome::kFail) > 0);
    CHECK(Count(outcome, CheckOutcome::kPass) == 0);
  }
  // `--checks gpu,ib` on a dead cluster was "0 passed, 0 failed, 67 skipped": now each selected
  // node check fails on each host, naming why.
  ValidationOutcome dead = harness.Validate("all", {"gpu", "ib"});
  for (const CheckResult& r : dead.results) {
    if (r.scope == CheckScope::kNode) CHECK_MESSAGE(r.outcome == CheckOutcome::kFail, r.check << " on " << r.subject);
  }
  bool named = false;
  for (const CheckResult& r : dead.results) {
    if (r.check == "gpu.ecc" && r.subject == "dgx02") {
      named = r.detail.find("not checked: dgx02 is unreachable") == 0 && r.measured == "unknown";
    }
  }
  CHECK(named);
}

}  // namespace clusterctl
