// The acceptance level's shared parts: the peer judgement (peer_judgement.h),
// the level in the check selection, and --drain-failed (acceptance_drain.h)
// on a FakeClusterRun standing for the Slurm controller.
#include <doctest/doctest.h>

#include "controller/validate/acceptance_drain.h"
#include "controller/validate/check_selection.h"
#include "controller/validate/checks/spec_test_util.h"
#include "controller/validate/peer_judgement.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

const PeerRule kRule{"net.iperf3", CheckScope::kNode, "Gb/s"};

TEST_CASE("peer judgement: the median, a node below it by more than its percent fails even above the floor") {
  CHECK(Median({3, 1, 2}) == 2);
  CHECK(Median({4, 1, 3, 2}) == 2.5);
  const std::vector<CheckResult> r = JudgeAgainstPeers(
      kRule, {{"node01", "", 97.1, 10, 20}, {"node07", "", 31.2, 10, 20}, {"node03", "", 98, 10, 20}, {"node04", "", 80, 10, 20}});
  REQUIRE(r.size() == 4);
  CHECK(r[1].subject == "node07");
  CHECK(r[1].outcome == CheckOutcome::kFail);
  CHECK(r[1].detail == "31.2 Gb/s < median 88.55 Gb/s - 20% of 4 nodes");
  CHECK(r[1].measured == "31.2 Gb/s");
  CHECK(r[1].threshold == ">= 10 Gb/s, >= median - 20%");
  CHECK(r[3].outcome == CheckOutcome::kPass);  // 80 >= 88.55 * 0.8
  CHECK(r[3].detail == "within 20% of the median 88.55 Gb/s of 4 nodes");
}

TEST_CASE("peer judgement: the floor first; groups are judged apart; a node alone has only its floor") {
  const std::vector<CheckResult> r = JudgeAgainstPeers(
      kRule, {{"a1", "a", 9, 10, 20}, {"a2", "a", 11, 10, 20}, {"b1", "b", 1, std::nullopt, 20}, {"b2", "b", 100, std::nullopt, 20},
              {"c1", "c", 5, 4, 20}, {"d1", "d", 5, std::nullopt, 20}});
  CHECK(r[0].detail == "9 Gb/s < floor 10 Gb/s");
  CHECK(r[1].outcome == CheckOutcome::kPass);  // 11 against group a's median 10, not group b's
  CHECK(r[2].outcome == CheckOutcome::kFail);  // 1 against b's median 50.5
  CHECK(r[3].outcome == CheckOutcome::kPass);
  CHECK(r[4].outcome == CheckOutcome::kPass);
  CHECK(r[4].detail == "above the floor; no peers to compare with");
  CHECK(r[4].threshold == ">= 4 Gb/s");
  CHECK(r[5].detail == "measured; no floor and no peers to compare with");
}

TEST_CASE("--level: the functional level never selects an acceptance check; acceptance adds them after the functional ones") {
  auto functional = CheckSelection::Parse({});
  REQUIRE(functional.ok());
  CHECK(functional->Has("gpu.ecc"));
  CHECK_FALSE(functional->Has("net.iperf3"));
  CHECK_FALSE(functional->Has("storage.fio"));
  auto acceptance = CheckSelection::Parse({}, CheckLevel::kAcceptance);
  REQUIRE(acceptance.ok());
  CHECK(acceptance->Has("gpu.ecc"));
  CHECK(acceptance->Has("net.iperf3"));
  CHECK(acceptance->Has("storage.fio"));
  CHECK(FindCheckSpec("net.iperf3")->rank > FindCheckSpec("nccl.cluster")->rank);
  auto named = CheckSelection::Parse({"net.iperf3"});
  REQUIRE_FALSE(named.ok());
  CHECK(named.status().message() == "--checks: 'net.iperf3' is an acceptance check: it runs with --level acceptance");
  auto only = CheckSelection::Parse({"storage"}, CheckLevel::kAcceptance);
  REQUIRE(only.ok());
  CHECK(only->Has("storage.fio"));
  CHECK_FALSE(only->Has("net.iperf3"));
}

const char* kSlurmInventory = R"(cluster: testbed
connection: {user: root}
hosts:
  ctl01: {address: 10.9.0.10}
  node01: {address: 10.9.0.1}
  node02: {address: 10.9.0.2}
  node03: {address: 10.9.0.3}
groups:
  controller: {hosts: ctl01}
  compute: {hosts: [node01, node02, node03]}
)";

// The controller's answers: each node's state and reason as slurmctld has them.
struct SlurmBench : testing::FakeClusterRun {
  std::map<std::string, std::pair<std::string, std::string>> state = {
      {"node01", {"IDLE", ""}}, {"node02", {"IDLE", ""}}, {"node03", {"IDLE", ""}}};
  SlurmBench() {
    inv = testing::InventoryFromText(kSlurmInventory);
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.size() == 4 && c.argv[1] == "show") {
        const auto& [s, reason] = state.at(c.argv[3]);
        out.out = "NodeName=" + c.argv[3] + " Arch=x86_64 CoresPerSocket=1\n   State=" + s + " ThreadsPerCore=1\n" +
                  (reason.empty() ? "" : "   Reason=" + reason + "\n");
      }
      return out;
    };
  }
  std::vector<Argv> Updates() const {
    std::vector<Argv> out;
    for (const HostCommand& c : ran) {
      if (c.argv[1] == "update") out.push_back(c.argv);
    }
    return out;
  }
};

const std::vector<CheckResult> kReport = {
    Pass("gpu.ecc", CheckScope::kNode, "node02"),
    Fail("gpu.ecc", CheckScope::kNode, "node01", "volatile uncorrectable ECC errors"),  // the health check's business
    Pass("net.iperf3", CheckScope::kNode, "node01"),
    Fail("net.iperf3", CheckScope::kNode, "node02", "mgmt: to node01 31.2 Gb/s < median 97.1 Gb/s - 20% of 3 nodes"),
    Pass("net.iperf3", CheckScope::kNode, "node03")};

TEST_CASE("--drain-failed drains exactly the node an acceptance check failed, with the check and reading as the reason") {
  SlurmBench run;
  const std::vector<std::string> lines = DrainFailedNodes(run, "ctl01", kReport);
  REQUIRE(run.Updates().size() == 1);
  CHECK(run.Updates()[0] == Argv{"scontrol", "update", "nodename=node02", "state=drain",
                                 "reason=clusterctl-accept: net.iperf3 mgmt: to node01 31.2 Gb/s < median 97.1 Gb/s - 20% of 3 nodes"});
  for (const HostCommand& c : run.ran) CHECK(c.host == "ctl01");
  CHECK(lines == std::vector<std::string>{
                     "node01: every check passes", "node02: failed: draining (clusterctl-accept: net.iperf3 mgmt: to node01 31.2 Gb/s < median 97.1 Gb/s - 20% of 3 nodes)",
                     "node03: every check passes"});
}

TEST_CASE("--drain-failed: a passing run resumes what acceptance drained, never an admin's or the health check's drain") {
  SlurmBench run;
  run.state["node01"] = {"IDLE+DRAIN", "clusterctl-accept: net.iperf3 mgmt: slow [root@2026-11-29T12:00:00]"};
  run.state["node02"] = {"IDLE+DRAIN", "clusterctl: gpu.ecc volatile uncorrectable"};  // the health check's
  run.state["node03"] = {"DRAINED", "bad fan, ticket 42"};                                   // an admin's
  const std::vector<CheckResult> passing = {Pass("net.iperf3", CheckScope::kNode, "node01"),
                                            Pass("net.iperf3", CheckScope::kNode, "node02"),
                                            Pass("net.iperf3", CheckScope::kNode, "node03")};
  const std::vector<std::string> lines = DrainFailedNodes(run, "ctl01", passing);
  REQUIRE(run.Updates().size() == 1);
  CHECK(run.Updates()[0] == Argv{"scontrol", "update", "nodename=node01", "state=resume"});
  CHECK(lines[0] == "node01: every check passes: resuming the node acceptance drained");
  CHECK(lines[1].find("drained for another reason (clusterctl: gpu.ecc") != std::string::npos);
  CHECK(lines[2].find("left alone") != std::string::npos);
}

TEST_CASE("--drain-failed: nothing is changed without a controller, a reading of the node, or a measured compute node") {
  SlurmBench run;
  CHECK(DrainFailedNodes(run, "", kReport) == std::vector<std::string>{"no Slurm controller in the inventory: nothing drained or resumed"});
  CHECK(DrainFailedNodes(run, "ctl01", {Fail("gpu.ecc", CheckScope::kNode, "node01", "x")}) ==
        std::vector<std::string>{"no compute node was measured: nothing to drain or resume"});
  run.answer = [](const HostCommand&) {
    ToolOutput out;
    out.exit_code = 1;
    out.err = "slurm_load_node error: Unable to contact slurm controller";
    return out;
  };
  const std::vector<std::string> lines = DrainFailedNodes(run, "ctl01", kReport);
  CHECK(run.Updates().empty());
  CHECK(lines[1].rfind("node02: nothing changed: scontrol show node node02: ", 0) == 0);
}

}  // namespace
}  // namespace clusterctl
