// Judging one check spec the way the node itself would (check_spec.h): a
// NodeView of the node's facts and probe outputs and the
// validate variables at their defaults, and no reading of the controller.
// A cluster check's phase runs against a FakeClusterRun instead.
#pragma once

#include <functional>
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "controller/catalog/check_variables.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/cluster_run.h"
#include "controller/views/nfs_view.h"

namespace clusterctl::testing {

struct SpecBench {
  NodeReadings node = NodeReadings::FromFacts("node01", nlohmann::json::object());
  nlohmann::json vars = nlohmann::json::object();  // the inventory's; defaults added by Judge
  NodeRole role;  // the node's place in the cluster (none: no Slurm cluster)

  // `check`'s verdict on the node; a requirement it misses, as the skip.
  CheckResult Judge(const std::string& check) const {
    const CheckSpec* spec = FindCheckSpec(check);
    REQUIRE_MESSAGE(spec != nullptr, "no check spec " << check);
    const bool judged_per_node = spec->verdict != nullptr;
    REQUIRE_MESSAGE(judged_per_node, check << " has no node verdict");
    const nlohmann::json resolved = WithValidateDefaults(vars);
    NodeView view{node, resolved, role, nullptr, nullptr};
    if (std::string unmet = UnmetRequirement(*spec, view); !unmet.empty()) {
      return Skip(check, spec->scope, node.host, unmet);
    }
    return spec->verdict(view);
  }

  // The argv the probe `id` runs on this node.
  Argv Command(const std::string& check, const std::string& id) const {
    const nlohmann::json resolved = WithValidateDefaults(vars);
    NodeView view{node, resolved, role, nullptr, nullptr};
    for (const ProbeSpec* probe : FindCheckSpec(check)->probes) {
      if (probe->id == id) return probe->CommandsFor(view).front();
    }
    FAIL("no probe " << id << " in " << check);
    return {};
  }

  void Reads(const std::string& probe, const std::string& out, int exit_code = 0, const std::string& err = "") {
    ToolOutput output;
    output.out = out;
    output.err = err;
    output.exit_code = exit_code;
    node.outputs[probe] = output;
    node.ClearParsed();
  }
};

// A cluster check's phase (check_spec.h, ClusterPhase) run on recorded
// readings: the nodes' facts and probe outputs, the inventory's variables,
// what each command prints. It keeps the commands the phase ran and the
// results it added.
class FakeClusterRun : public ClusterRun {
 public:
  std::string cluster_name = "testbed";
  std::string submit_host = "login01";
  std::vector<std::string> usable;                // UsableComputeNodes()
  std::map<std::string, std::string> unusable;    // UnusableComputeNodes()
  std::vector<std::string> compute;               // ComputeNodes(); empty: `usable`
  std::set<std::string> unreachable;              // hosts that did not answer the probe phase
  std::vector<CheckResult> earlier;               // the report before the phase (FailureReported reads it too)
  int seconds_left = 900;                         // until the run's deadline: Limit, SecondsLeft() (an `answer` may lower it)
  std::map<std::string, nlohmann::json> vars;     // the inventory's, by host; defaults added by View
  // What a command prints; by default it exits 0 printing nothing.
  std::function<ToolOutput(const HostCommand&)> answer = [](const HostCommand&) { return ToolOutput{}; };
  bool deadline_passed = false;                   // RunCommands runs nothing; SecondsLeft() is 0
  std::vector<ProbedHost> probed;                 // ProbedHosts(); View needs a Node for each
  std::map<std::string, std::map<std::string, CheckOutcome>> node_outcomes;  // NodeOutcome(): host -> check -> verdict
  Inventory inv;                                  // inventory() (testing::InventoryFromText)
  std::set<std::string> unreported;               // checks the selection leaves out: Reports() false, Add drops them
  // What a host's BMC answers (ThroughBmcs); by default a failure.
  std::function<PowerResult(const Host&, PowerAction)> bmc = [](const Host& host, PowerAction) {
    return PowerResult{&host, false, "no BMC answers in this test", {}, {}};
  };
  std::vector<std::pair<std::string, PowerAction>> bmc_asked;  // host, action: each BMC request, in order

  std::vector<HostCommand> ran;
  std::vector<CheckResult> results;
  std::vector<std::string> progress;               // the Progress lines, in order

  // The readings of `host` (made from empty facts on first use).
  NodeReadings& Node(const std::string& host, const nlohmann::json& facts = nlohmann::json::object()) {
    auto it = nodes_.find(host);
    if (it == nodes_.end()) it = nodes_.emplace(host, NodeReadings::FromFacts(host, facts)).first;
    return it->second;
  }

  // The result the phase added for `subject` (fails the test when none).
  const CheckResult& Of(const std::string& subject) {
    for (const CheckResult& r : results) {
      if (r.subject == subject) return r;
    }
    FAIL("no result for " << subject);
    return results.front();
  }

  // How many results the phase added for `subject`.
  size_t Count(const std::string& subject) const {
    return static_cast<size_t>(std::count_if(results.begin(), results.end(), [&](const CheckResult& r) { return r.subject == subject; }));
  }

  // Runs `check`'s cluster phase; the results it added.
  const std::vector<CheckResult>& Phase(const std::string& check) {
    const CheckSpec* spec = FindCheckSpec(check);
    REQUIRE_MESSAGE(spec != nullptr, "no check spec " << check);
    const bool has_phase = spec->cluster_phase.run != nullptr;
    REQUIRE_MESSAGE(has_phase, check << " has no cluster phase");
    spec->cluster_phase.run(*this);
    return results;
  }

  const std::string& cluster() const override { return cluster_name; }
  std::vector<std::string> UsableComputeNodes() const override { return usable; }
  std::map<std::string, std::string> UnusableComputeNodes() const override { return unusable; }
  std::vector<std::string> ComputeNodes() const override { return compute.empty() ? usable : compute; }
  const std::string& SubmitHost() const override { return submit_host; }
  bool Reached(const std::string& host) const override { return unreachable.count(host) == 0; }
  bool FailureReported(const std::string& check, const std::string& subject) const override {
    for (const std::vector<CheckResult>* report : {&earlier, &results}) {
      for (const CheckResult& r : *report) {
        bool on_subject = r.subject == subject || r.scope == CheckScope::kCluster;
        if (r.check == check && r.outcome == CheckOutcome::kFail && on_subject) return true;
      }
    }
    return false;
  }
  int Limit(int seconds) const override { return std::max(1, std::min(seconds, seconds_left)); }
  NodeView View(const std::string& host) const override {
    auto node = nodes_.find(host);
    REQUIRE_MESSAGE(node != nodes_.end(), "the phase read " << host << ", which has no readings");
    auto given = vars.find(host);
    const nlohmann::json& resolved = resolved_[host] =
        WithValidateDefaults(given != vars.end() ? given->second : nlohmann::json::object());
    return NodeView{node->second, resolved, NodeRole{}, nullptr, nullptr};
  }
  std::vector<Result<ToolOutput>> RunCommands(const std::vector<HostCommand>& commands) override {
    std::vector<Result<ToolOutput>> outputs;
    for (const HostCommand& command : commands) {
      if (deadline_passed) {
        outputs.emplace_back(Status::Unavailable(DeadlineText()));
        continue;
      }
      ran.push_back(command);
      outputs.emplace_back(answer(command));
    }
    return outputs;
  }
  void Add(CheckResult result) override {
    if (!unreported.count(result.check)) results.push_back(std::move(result));
  }
  bool Reports(const std::string& check) const override { return !unreported.count(check); }
  void Progress(const std::string& line) override { progress.push_back(line); }
  Result<nlohmann::json> NfsView() const override { return BuildNfsView(inv, {}); }
  std::vector<ProbedHost> ProbedHosts() const override { return probed; }
  std::optional<CheckOutcome> NodeOutcome(const std::string& check, const std::string& host) const override {
    auto on_host = node_outcomes.find(host);
    if (on_host == node_outcomes.end() || !on_host->second.count(check)) return std::nullopt;
    return on_host->second.at(check);
  }
  const Inventory& inventory() const override { return inv; }
  std::vector<PowerResult> ThroughBmcs(const std::vector<const Host*>& hosts, PowerAction action) override {
    std::vector<PowerResult> answers;
    for (const Host* host : hosts) {
      bmc_asked.emplace_back(host->name, action);
      answers.push_back(bmc(*host, action));
    }
    return answers;
  }
  int SecondsLeft() const override { return deadline_passed ? 0 : seconds_left; }
  std::string DeadlineText() const override { return "not run: the validation's deadline (900 s) passed first"; }

 private:
  std::map<std::string, NodeReadings> nodes_;
  mutable std::map<std::string, nlohmann::json> resolved_;
};

}  // namespace clusterctl::testing
