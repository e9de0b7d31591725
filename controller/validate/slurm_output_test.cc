// The Slurm controller's view of its nodes, as validate reads it
// (scontrol_nodes.h, slurm_output.h), on real captures of `scontrol show node`
// text from Slurm 17.11, 22.05, 23.02, 24.05 and 24.11, and of Slurm's JSON
// from 21.08 (state as a string) and 23.02 to 24.11 (state as an array)
// (tests/fixtures/captured/SOURCES.md). Cases no public capture shows are
// derived from a real capture by one named edit, said at each.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "controller/validate/check_test_util.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/scontrol_nodes.h"
#include "controller/validate/slurm_output.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

using testing::EvidenceHas;
using testing::Output;

std::string Fixture(const std::string& name) { return testing::CapturedFixture(name); }

const char kText2211[] = "scontrol-show-node--24.11.7-g7e-IDLE-CLOUD-reason-after-blank-line--1.txt";
const char kText2211Down[] = "scontrol-show-node--24.11-g7e-DOWN-CLOUD-POWERED_DOWN--1.txt";
const char kText2405[] = "scontrol-show-node--24.05.8-ParallelCluster-cloud-reason-after-blank-line--1.txt";
const char kText2205And2302[] = "scontrol-show-node--22.05.7-23.02.4-ParallelCluster-cloud--1.txt";
const char kText1711[] = "scontrol-show-node--1.txt";
const char kJson2302[] = "scontrol-show-node-json--slurmrestd-23.02.8-v0.0.39-IDLE-DRAIN--1.json";
const char kJson2405[] = "scontrol-show-node-json--slurmrestd-24.05.3-v0.0.41-DOWN--1.json";
const char kJson2411[] = "scontrol-show-node-json--slurmrestd-24.11.5-v0.0.42-IDLE-DRAIN--1.json";

// `text` with its one occurrence of `from` replaced by `to` (the named edit of a derived case).
std::string Edited(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "the capture has no '" << from << "'");
  REQUIRE_MESSAGE(text.find(from, at + 1) == std::string::npos, "'" << from << "' is not unique");
  return text.replace(at, from.size(), to);
}

struct Expected {
  std::string state;
  bool usable;
  std::string why_not;
  std::string reason;
};

void CheckNodes(const std::vector<SlurmNodeState>& nodes, const std::map<std::string, Expected>& expected) {
  REQUIRE(nodes.size() == expected.size());
  for (const SlurmNodeState& n : nodes) {
    CAPTURE(n.name);
    REQUIRE(expected.count(n.name) == 1);
    const Expected& e = expected.at(n.name);
    CHECK(n.state == e.state);
    CHECK(n.usable == e.usable);
    CHECK(n.why_not == e.why_not);
    CHECK(n.reason == e.reason);
  }
}

}  // namespace

// ---- the text form, one test per release ----

TEST_CASE("slurm text 24.11.7: the whitespace-only line before Reason= stays inside the record (issue 30, 3)") {
  std::string text = Fixture(kText2211);
  REQUIRE(text.find("AveWatts=0\n   \n   Reason=Node start up") != std::string::npos);  // the case itself
  auto nodes = ParseScontrolShowNode(text);
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  // IDLE+CLOUD with a reason left from its start-up: a cloud node that is up takes jobs.
  CheckNodes(*nodes, {{"gpu-st-ml-1", {"IDLE+CLOUD", true, "", "Node start up [root@2026-03-11T11:05:51]"}}});
  CHECK((*nodes)[0].gpus == 1);  // Gres=gpu:rtxproserver6000:1
  CHECK(EvaluateSlurmNode("gpu-st-ml-1", &(*nodes)[0], Output("active\n")).outcome == CheckOutcome::kPass);
}

TEST_CASE("slurm text 24.11: a DOWN+CLOUD+POWERED_DOWN node with its reason after the blank line fails naming both") {
  auto nodes = ParseScontrolShowNode(Fixture(kText2211Down));
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  const std::string reason = "Static node maintenance: unhealthy node is being replaced [root@2026-03-13T04:18:07]";
  CheckNodes(*nodes, {{"gpu-st-ml-1", {"DOWN+CLOUD+POWERED_DOWN", false, "down, powered down", reason}}});
  auto r = EvaluateSlurmNode("gpu-st-ml-1", &(*nodes)[0], Output("active\n"));
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "gpu-st-ml-1 is down, powered down: " + reason);
  CHECK(EvidenceHas(r, "State=DOWN+CLOUD+POWERED_DOWN Reason=Static node maintenance"));
}

TEST_CASE("slurm text 24.05.8: an empty line before Reason= and records cut short by head -n 50") {
  auto nodes = ParseScontrolShowNode(Fixture(kText2405));
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  CheckNodes(*nodes, {{"i8-dy-r6gb64-1", {"IDLE+CLOUD+POWERED_DOWN", false, "powered down",
                                          "Scheduler health check failed [root@2026-01-23T14:13:13]"}},
                      {"i8-dy-r7gb64-1", {"IDLE+CLOUD+POWERED_DOWN", false, "powered down", ""}},
                      {"i128-dy-c6gb256-1", {"IDLE+CLOUD+POWERED_DOWN", false, "powered down", ""}}});
  CHECK((*nodes)[0].gpus == 0);  // Gres=(null)
}

TEST_CASE("slurm text 22.05.7 and 23.02.4: reboot issued and maintenance are not usable") {
  auto nodes = ParseScontrolShowNode(Fixture(kText2205And2302));
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  CheckNodes(*nodes,
             {{"queue1-st-compute-resource-1-1", {"DOWN+CLOUD+REBOOT_ISSUED", false, "down, rebooting",
                                                  "Reboot ASAP : reboot issued [slurm@2023-01-26T10:11:39]"}},
              {"queue1-st-compute-resource-1-2", {"DOWN+CLOUD+REBOOT_ISSUED", false, "down, rebooting",
                                                  "Reboot ASAP : reboot issued [slurm@2023-01-26T10:11:40]"}},
              {"queue1-st-crt2micro-1", {"IDLE+CLOUD+MAINTENANCE+RESERVED", false, "in maintenance", ""}}});
}

TEST_CASE("slurm text 17.11: one drained node with a reason among allocated and idle ones") {
  auto nodes = ParseScontrolShowNode(Fixture(kText1711));
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  CheckNodes(*nodes, {{"cortex-01", {"ALLOCATED", true, "", ""}},
                      {"dumfries-002", {"ALLOCATED", true, "", ""}},
                      {"oxygen-04", {"IDLE+DRAIN", false, "drained", "memory issues? [root@2019-01-29T10:42:12]"}},
                      {"cricket", {"IDLE", true, "", ""}}});
}

// ---- the text form: cases no public capture shows, each one named edit of a capture ----

TEST_CASE("slurm text, derived: NOT_RESPONDING and FUTURE nodes are not usable") {
  // Derived from the 24.11.7 capture by one edit: State=IDLE+CLOUD -> State=IDLE+NOT_RESPONDING.
  auto silent = ParseScontrolShowNode(Edited(Fixture(kText2211), "State=IDLE+CLOUD ", "State=IDLE+NOT_RESPONDING "));
  REQUIRE_MESSAGE(silent.ok(), silent.status().message());
  CheckNodes(*silent, {{"gpu-st-ml-1", {"IDLE+NOT_RESPONDING", false, "not responding",
                                       "Node start up [root@2026-03-11T11:05:51]"}}});
  // Derived from the 24.11.7 capture by one edit: State=IDLE+CLOUD -> State=FUTURE+CLOUD.
  auto future = ParseScontrolShowNode(Edited(Fixture(kText2211), "State=IDLE+CLOUD ", "State=FUTURE+CLOUD "));
  REQUIRE_MESSAGE(future.ok(), future.status().message());
  CheckNodes(*future, {{"gpu-st-ml-1", {"FUTURE+CLOUD", false, "future", "Node start up [root@2026-03-11T11:05:51]"}}});
  // Derived from the 17.11 capture by one edit: the older not-responding suffix, State=IDLE+DRAIN -> State=IDLE*+DRAIN.
  auto star = ParseScontrolShowNode(Edited(Fixture(kText1711), "State=IDLE+DRAIN ", "State=IDLE*+DRAIN "));
  REQUIRE_MESSAGE(star.ok(), star.status().message());
  CHECK((*star)[2].why_not == "drained, not responding");
}

TEST_CASE("slurm text: output that is not scontrol show node is refused, not read as no nodes") {
  CHECK_FALSE(ParseScontrolShowNode("").ok());
  CHECK_FALSE(ParseScontrolShowNode("   \n\n").ok());
  // The records' lines without their NodeName= line (the first 21 lines of the 24.11.7 capture cut off).
  std::string text = Fixture(kText2211);
  CHECK_FALSE(ParseScontrolShowNode(text.substr(text.find("   CPUAlloc="))).ok());
  // A record whose State= line is missing: the 24.11.7 capture with that one line removed.
  std::string stateless =
      Edited(text, "   State=IDLE+CLOUD ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n", "");
  auto r = ParseScontrolShowNode(stateless);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("a record without NodeName= and State=") != std::string::npos);
  CHECK_FALSE(ParseScontrolShowNode(Fixture(kJson2411)).ok());
}

// ---- the JSON form ----

TEST_CASE("slurm json 23.02.8 (v0.0.39): state as an array, IDLE+DRAIN with its reason fails") {
  auto parsed = ParseSlurmNodesJson(Fixture(kJson2302));
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  CHECK(parsed->release == "23.02.8");
  CheckNodes(parsed->nodes, {{"cn051", {"IDLE+DRAIN", false, "drained", "ECC memory error"}}});
}

TEST_CASE("slurm json 24.05.3 (v0.0.41) and 24.11.5 (v0.0.42): down and drained nodes fail") {
  auto down = ParseSlurmNodesJson(Fixture(kJson2405));
  REQUIRE_MESSAGE(down.ok(), down.status().message());
  CHECK(down->release == "24.05.3");
  CheckNodes(down->nodes, {{"cn026", {"DOWN", false, "down", "CPU dead"}}});
  auto drained = ParseSlurmNodesJson(Fixture(kJson2411));
  REQUIRE_MESSAGE(drained.ok(), drained.status().message());
  CHECK(drained->release == "24.11.5");
  CheckNodes(drained->nodes, {{"cn4", {"IDLE+DRAIN", false, "drained", "ECC memory error"}}});
  CHECK(drained->nodes[0].gpus == 0);  // "gres": ""
}

TEST_CASE("slurm json 21.08.5 (v0.0.37): state as a string with state_flags; the down node fails") {
  auto parsed = ParseSlurmNodesJson(Fixture("sinfo-json--1.json"));
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  CHECK(parsed->release == "21.08.5");
  REQUIRE(parsed->nodes.size() == 4);
  int down = 0;
  for (const SlurmNodeState& n : parsed->nodes) {
    auto r = EvaluateSlurmNode(n.name, &n, Output("active\n"));
    if (n.state.rfind("down", 0) == 0) {
      ++down;
      CHECK(r.outcome == CheckOutcome::kFail);
    } else {
      CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, n.name << " " << n.state);
    }
  }
  CHECK(down == 1);
}

TEST_CASE("slurm json: hostile or foreign bytes are an error, never an exception or a pass") {
  // Hand-made inputs, not output of Slurm: each breaks one thing the parser relies on.
  const std::vector<std::string> bad = {
      "",
      "not json",
      "[]",
      "{}",
      R"({"nodes": {}})",
      R"({"nodes": []})",
      R"({"nodes": [1]})",
      R"({"nodes": [{"name": 5, "state": "idle"}]})",
      R"({"nodes": [{"name": "a"}]})",
      R"({"nodes": [{"name": "a", "state": [1]}]})",
      R"({"nodes": [{"name": "a", "state": ["NOT_RESPONDING"]}]})",
      R"({"nodes": [{"name": "a", "state": {"x": 1}}]})",
      R"({"nodes": [{"name": "a", "state": "SLEEPY"}]})",
      R"({"errors": [{"description": "x"}], "nodes": [{"name": "a", "state": "idle"}]})",
      std::string(200000, '['),
  };
  for (const std::string& text : bad) {
    CAPTURE(text.substr(0, 80));
    Result<SlurmNodesJson> parsed = Status::Unavailable("not parsed");
    REQUIRE_NOTHROW(parsed = ParseSlurmNodesJson(text));
    CHECK_FALSE(parsed.ok());
  }
  // A real capture cut in half is no reading either.
  std::string capture = Fixture(kJson2411);
  CHECK_FALSE(ParseSlurmNodesJson(capture.substr(0, capture.size() / 2)).ok());
  // Fields the verdict does not need may be of any type; the node is still read.
  auto odd = ParseSlurmNodesJson(
      R"({"meta": 5, "nodes": [{"name": "a", "state": ["IDLE", "DRAIN"], "gres": 7, "reason": {}}]})");
  REQUIRE_MESSAGE(odd.ok(), odd.status().message());
  CHECK(odd->release.empty());
  CheckNodes(odd->nodes, {{"a", {"IDLE+DRAIN", false, "drained", ""}}});
  CHECK_FALSE(odd->nodes[0].gpus.has_value());
}

// ---- which form validate reads ----

TEST_CASE("slurm reading: the --json form where it is understood, named in the evidence") {
  auto nodes = ReadScontrolNodesJson(Output(Fixture(kJson2411)));
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  REQUIRE(nodes->size() == 1);
  CHECK((*nodes)[0].read_from == "scontrol show node --json (Slurm 24.11.5)");
  auto r = EvaluateSlurmNode("cn4", &(*nodes)[0], Output("active\n"));
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "cn4 is drained: ECC memory error");
  CHECK(EvidenceHas(r, "read from scontrol show node --json (Slurm 24.11.5)"));
  CHECK(ScontrolShowNodeJsonArgv() == std::vector<std::string>{"scontrol", "show", "node", "--json"});
}

TEST_CASE("slurm reading: without a JSON reading the text form is read, and the evidence says why") {
  // --json exits 1 (an older Slurm, or one built without a JSON serializer).
  auto refused = ReadScontrolNodesJson(Output("", 1));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message() == "scontrol show node --json: exit 1");
  auto nodes = ReadScontrolNodesText(Output(Fixture(kText2211Down)), refused.status().message());
  REQUIRE_MESSAGE(nodes.ok(), nodes.status().message());
  CHECK((*nodes)[0].read_from == "scontrol show node, text (scontrol show node --json: exit 1)");
  auto r = EvaluateSlurmNode("gpu-st-ml-1", &(*nodes)[0], Output("active\n"));
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(EvidenceHas(r, "read from scontrol show node, text"));
  // --json exits 0 but prints text: not JSON, so the text form is read.
  auto text_on_stdout = ReadScontrolNodesJson(Output(Fixture(kText2211)));
  REQUIRE_FALSE(text_on_stdout.ok());
  CHECK(text_on_stdout.status().message().rfind("scontrol show node --json: not JSON: NodeName=gpu-st-ml-1", 0) == 0);
  CHECK(ScontrolShowNodeTextArgv() == std::vector<std::string>{"scontrol", "show", "node"});
}

TEST_CASE("slurm reading: neither form understood is an error that names both (slurm.node then fails)") {
  auto json = ReadScontrolNodesJson(Output("", 1));
  REQUIRE_FALSE(json.ok());
  auto garbled = ReadScontrolNodesText(Output(Fixture(kJson2302)), json.status().message());
  REQUIRE_FALSE(garbled.ok());
  CHECK(garbled.status().message().rfind("scontrol show node: not scontrol show node output: {", 0) == 0);
  CHECK(garbled.status().message().find("(and scontrol show node --json: exit 1)") != std::string::npos);
  auto failed = ReadScontrolNodesText(Output("", 1), json.status().message());
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().message() == "scontrol show node: exit 1 (and scontrol show node --json: exit 1)");
}

}  // namespace clusterctl

namespace clusterctl {

// ---- Slurm 24.11.5 on Debian 13, captured on the testbed (issue 49) ----
// The README stack deployed by tests/e2e/trixie_test.sh (E2E_CAPTURE_DIR):
// node02 and node03 idle, each with two simulated H100s in Gres.

TEST_CASE("slurm 24.11.5 (Debian 13 testbed): JSON, text and sinfo agree: two idle nodes with gpu:h100:2") {
  auto json = ParseSlurmNodesJson(Fixture("scontrol-show-node-json--24.11.5-testbed-trixie-IDLE--1.json"));
  REQUIRE_MESSAGE(json.ok(), json.status().message());
  CHECK(json->release == "24.11.5");
  auto text = ParseScontrolShowNode(Fixture("scontrol-show-node--24.11.5-testbed-trixie-IDLE--1.txt"));
  REQUIRE_MESSAGE(text.ok(), text.status().message());
  auto sinfo = ParseSinfoNodes(Fixture("sinfo-N-O-gres--24.11.5-testbed-trixie--1.txt"));
  REQUIRE_MESSAGE(sinfo.ok(), sinfo.status().message());
  for (const auto* nodes : {&json->nodes, &*text, &*sinfo}) {
    REQUIRE(nodes->size() == 2);
    for (const SlurmNodeState& n : *nodes) {
      CAPTURE(n.name);
      CHECK((n.name == "node02" || n.name == "node03"));
      CHECK(n.usable);
      CHECK(n.gpus == 2);
      CHECK(n.gpu_types == std::vector<std::string>{"h100"});
      CHECK(EvaluateSlurmNode(n.name, &n, Output("active\n")).outcome == CheckOutcome::kPass);
    }
  }
  CHECK(ParseScontrolPing(testing::ReadFixture(testing::FixturesDir() +
                                               "/slurm-24.11/scontrol-ping--24.11.5-testbed-trixie--1.txt"))
            .ok());
}

}  // namespace clusterctl
