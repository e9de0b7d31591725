// RunValidation as a whole, on a fleet of fake nodes (controller/engine/
// fake_fleet.h): no choice of --limit and --checks crashes it, and a run that
// could read nothing never passes (docs/validation.md, "No reading, no pass").
// The fake nodes answer every command with exit 0 and no output, which no
// parser accepts: every check that runs has output it does not understand,
// except the commands a test scripts with real captures (Answer).
#include "controller/validate/validation_run.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>

#include "common/strings.h"
#include "controller/engine/fake_fleet.h"
#include "controller/state/test_util.h"
#include "controller/validate/catalogue.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/check_test_util.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/scontrol_nodes.h"
#include "inventory/host_selection.h"
#include "inventory/loader.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// The controller and login node outside the compute group, as on a DGX
// cluster's head nodes, and a monitoring host in no Slurm group. The DGX
// nodes have BMCs (one password file, bmc.pw beside the inventory).
const char* kInventory = R"(cluster: t
connection: {user: root}
bmc: {user: admin, password_file: bmc.pw}
hosts:
  head: {address: 10.9.0.1}
  login01: {address: 10.9.0.2}
  dgx01: {address: 10.9.0.3, bmc: {address: 10.9.9.3}}
  dgx02: {address: 10.9.0.4, bmc: {address: 10.9.9.4}}
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
    std::ofstream(dir_.path() + "/bmc.pw") << "a-bmc-password\n";
    REQUIRE(::chmod((dir_.path() + "/bmc.pw").c_str(), 0600) == 0);
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

  using Argv = std::vector<std::string>;

  // `host` answers each command of `replies` with its reply instead of exit 0 and no output.
  void Answer(const std::string& host, const std::map<Argv, agent_protocol::ExecReply>& replies) {
    std::map<Argv, std::vector<agent_protocol::ExecReply>> in_turn;
    for (const auto& entry : replies) in_turn[entry.first] = {entry.second};
    AnswerInTurn(host, std::move(in_turn));
  }

  // `host` answers each command of `replies` with its replies in turn (the
  // last one again after them), every other command as usual; `asked`, if
  // given, counts how often each of those was asked.
  void AnswerInTurn(const std::string& host, std::map<Argv, std::vector<agent_protocol::ExecReply>> replies,
                    std::map<Argv, size_t>* asked = nullptr) {
    auto own_counts = std::make_shared<std::map<Argv, size_t>>();
    std::map<Argv, size_t>* counts = asked != nullptr ? asked : own_counts.get();
    fleet_.node(host).intercept = [replies = std::move(replies), own_counts,
                                   counts](const agent_protocol::IncomingRequest& in) {
      const auto* exec = std::get_if<agent_protocol::ExecRequest>(&in.request);
      auto it = exec == nullptr ? replies.end() : replies.find(exec->argv);
      if (it == replies.end()) return testing::Interception{};
      size_t turn = std::min((*counts)[it->first]++, it->second.size() - 1);
      return testing::Interception{agent_protocol::EncodeExecReply(in.id, it->second[turn])};
    };
  }

  // Every command `host` is asked to run, in order, into `seen` (answered as usual).
  void Record(const std::string& host, std::vector<std::vector<std::string>>* seen) {
    fleet_.node(host).intercept = [seen](const agent_protocol::IncomingRequest& in) {
      if (const auto* exec = std::get_if<agent_protocol::ExecRequest>(&in.request)) seen->push_back(exec->argv);
      return testing::Interception{};
    };
  }

  void AllUnreachable() {
    for (const Host& host : inventory_->hosts) fleet_.node(host.name).unreachable = true;
  }

  ValidationOutcome Validate(const std::string& limit, const std::vector<std::string>& checks) {
    auto selected = SelectHosts(*inventory_, limit);
    REQUIRE_MESSAGE(selected.ok(), selected.status().message());
    // The acceptance level: every check, the measurements too (which a 25 s deadline fails unmeasured).
    auto selection = CheckSelection::Parse(checks, CheckLevel::kAcceptance);
    REQUIRE_MESSAGE(selection.ok(), selection.status().message());
    ValidationInputs inputs;
    inputs.inventory = &*inventory_;
    inputs.selected = *selected;
    inputs.checks = *selection;
    // Fake nodes answer at once; a deadline this short only turns off the
    // waits meant for real nodes (monitoring.targets reads a failed target
    // again one scrape interval later, 16 s a run), which took the sweep below
    // from seconds to over four minutes.
    inputs.deadline = std::chrono::seconds(25);
    inputs.run_on = [this](const std::vector<const Host*>& hosts, const RemoteRunner::HostBody& body) {
      return RunOnHosts(fleet_, hosts, body);
    };
    inputs.processes = processes;
    return RunValidation(inputs);
  }

  void Unreachable(const std::string& host) { fleet_.node(host).unreachable = true; }

  ProcessRunner* processes = nullptr;  // ipmitool for the BMCs; null: the bmc checks have no way to them

 private:
  testing::TempDir dir_;
  std::optional<Inventory> inventory_;
  testing::FakeFleet fleet_;
};

agent_protocol::ExecReply Reply(const std::string& out, int exit_code = 0) {
  agent_protocol::ExecReply reply;
  reply.exit_code = exit_code;
  reply.stdout_data = out;
  return reply;
}

// `text` with its one occurrence of `from` replaced by `to`.
std::string Edited(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

const CheckResult* Find(const ValidationOutcome& outcome, const std::string& check, const std::string& subject) {
  for (const CheckResult& r : outcome.results) {
    if (r.check == check && r.subject == subject) return &r;
  }
  return nullptr;
}

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

// The BMCs' ipmitool: `chassis power status` on; `sel list` dgx02's from a
// capture of ipmi_sim (three critical entries), dgx01's empty.
class BmcAnswers final : public ProcessRunner {
 public:
  ProcessOutput Run(const std::vector<std::string>& argv, std::chrono::milliseconds) override {
    const bool dgx02 = std::find(argv.begin(), argv.end(), "10.9.9.4") != argv.end();
    if (argv.back() == "status") return {true, false, 0, "Chassis Power is on\n", ""};
    if (argv.back() != "list") return {true, false, 1, "", "unexpected\n"};
    return {true, false, 0, dgx02 ? testing::CapturedFixture("ipmitool-sel-list--ipmi_sim--4-entries--1.txt") : "",
            dgx02 ? "" : "SEL has no entries\n"};
  }
};

}  // namespace

TEST_CASE("validate: the bmc checks read each BMC from the controller, an SSH-unreachable node's too") {
  ValidationHarness harness;
  BmcAnswers ipmitool;
  harness.processes = &ipmitool;
  harness.Unreachable("dgx02");
  ValidationOutcome outcome = harness.Validate("all", {"bmc"});
  for (const char* node : {"dgx01", "dgx02"}) {
    const CheckResult* reachable = Find(outcome, "bmc.reachable", node);
    REQUIRE(reachable != nullptr);
    CHECK_MESSAGE(reachable->outcome == CheckOutcome::kPass, reachable->detail);
  }
  CHECK(Find(outcome, "bmc.sel", "dgx01")->outcome == CheckOutcome::kPass);
  const CheckResult* sel = Find(outcome, "bmc.sel", "dgx02");
  REQUIRE(sel != nullptr);
  CHECK(sel->outcome == CheckOutcome::kFail);
  CHECK(sel->measured == "3 critical");
  CHECK(Find(outcome, "bmc.sel", "head")->outcome == CheckOutcome::kSkip);
  int results = 0;
  for (const CheckResult& r : outcome.results) results += r.check.rfind("bmc.", 0) == 0;
  CHECK(results == 10);  // one per check and selected host, dgx02's from its BMC, not "unreachable"
}

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

TEST_CASE("validate: a host outside --limit runs only what the selected hosts' checks read of it") {
  // The controller answers for dgx01 (its slurm.conf, its munge credential);
  // its own clock, disks and GPUs are not the question.
  ValidationHarness harness;
  std::vector<std::vector<std::string>> head, dgx01;
  harness.Record("head", &head);
  harness.Record("dgx01", &dgx01);
  harness.Validate("dgx01", {"clock.offset", "node.disk", "slurm.conf"});
  auto ran = [](const std::vector<std::vector<std::string>>& seen, const std::string& program) {
    return std::any_of(seen.begin(), seen.end(), [&](const auto& argv) { return argv.front() == program; });
  };
  CHECK(ran(dgx01, "chronyc"));
  CHECK(ran(dgx01, "df"));
  CHECK(ran(dgx01, "sha256sum"));
  CHECK(ran(head, "sha256sum"));
  CHECK_FALSE(ran(head, "chronyc"));
  CHECK_FALSE(ran(head, "df"));
}

// clock.offset's probe on a chronyd not synchronised yet: read again after
// its settle (bursts and waitsync); still not synchronised, the settle's
// report of the sources is the failure's evidence.
TEST_CASE("validate: a reading not settled is read again after the probe's settle, whose output a failure keeps") {
  const ProbeSpec* probe = FindCheckSpec("clock.offset")->probes.at(0);
  const std::vector<std::string> tracking = probe->commands.at(0);
  const std::string synced =
      "Reference ID    : 0A090001 (10.9.0.1)\nStratum         : 11\n"
      "System time     : 0.000005916 seconds slow of NTP time\nLeap status     : Normal\n";
  const std::string unsynced =
      "Reference ID    : 00000000 ()\nStratum         : 0\n"
      "System time     : 0.000000000 seconds fast of NTP time\nLeap status     : Not synchronised\n";
  const std::string sources = "^? 10.9.0.1                      0   7     0     -     +0ns[   +0ns] +/-    0ns";

  ValidationHarness harness;
  std::map<std::vector<std::string>, size_t> asked;
  harness.AnswerInTurn("dgx01", {{tracking, {Reply(unsynced), Reply(synced)}}, {probe->settle, {Reply("")}}}, &asked);
  ValidationOutcome first = harness.Validate("dgx01", {"clock.offset"});
  const CheckResult* settled = Find(first, "clock.offset", "dgx01");
  REQUIRE(settled != nullptr);
  CHECK_MESSAGE(settled->outcome == CheckOutcome::kPass, settled->detail);
  CHECK(asked[tracking] == 2);
  CHECK(asked[probe->settle] == 1);

  asked.clear();
  harness.AnswerInTurn("dgx01",
                       {{tracking, {Reply(unsynced)}},
                        {probe->settle, {Reply("not synchronised after 4 bursts of measurements\n" + sources + "\n", 1)}}},
                       &asked);
  ValidationOutcome second = harness.Validate("dgx01", {"clock.offset"});
  const CheckResult* failed = Find(second, "clock.offset", "dgx01");
  REQUIRE(failed != nullptr);
  CHECK(failed->outcome == CheckOutcome::kFail);
  CHECK(failed->detail == "clock not synchronised (Leap status: Not synchronised)");
  REQUIRE_MESSAGE(!failed->evidence.empty(), failed->detail);
  CHECK(std::find(failed->evidence.begin(), failed->evidence.end(), sources) != failed->evidence.end());
  CHECK(failed->evidence.front() == "Reference ID    : 00000000 ()");
  CHECK(asked[tracking] == 2);
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

// Each selected node gets one result per node check, whichever phase judges
// it: a measurement's phase must not repeat what the node phase already said
// of an unreachable node or one the check does not apply to.
TEST_CASE("validate: one result per node check and selected node, the acceptance measurements' phases too") {
  ValidationHarness harness;
  auto once_each = [](const ValidationOutcome& outcome) {
    std::map<std::pair<std::string, std::string>, int> seen;
    for (const CheckResult& r : outcome.results) {
      if (r.scope == CheckScope::kNode) ++seen[{r.check, r.subject}];
    }
    for (const auto& [key, n] : seen) CHECK_MESSAGE(n == 1, key.first << " on " << key.second << ": " << n << " results");
  };
  once_each(harness.Validate("all", {}));  // storage and head have no GPUs and no InfiniBand ports
  harness.AllUnreachable();
  once_each(harness.Validate("all", {}));
}

TEST_CASE("validate: slurm.node reads a node drained behind Slurm 24.x's blank line before Reason= (issue 30, 3)") {
  ValidationHarness harness;
  for (const char* node : {"dgx01", "dgx02"}) {
    harness.Answer(node, {{{"systemctl", "is-active", "slurmd"}, Reply("active\n")}});
  }
  const std::vector<std::string> ping = {"scontrol", "ping"};
  const std::string up = "Slurmctld(primary) at head is UP\n";
  // Text: the 24.11 capture (DOWN+CLOUD+POWERED_DOWN, a whitespace-only line before Reason=) with one
  // edit, NodeName=gpu-st-ml-1 -> NodeName=dgx01. JSON: the 24.11.5 capture with one edit, cn4 -> dgx01.
  const std::string text =
      Edited(testing::CapturedFixture("scontrol-show-node--24.11-g7e-DOWN-CLOUD-POWERED_DOWN--1.txt"),
             "NodeName=gpu-st-ml-1 ", "NodeName=dgx01 ");
  const std::string json = Edited(
      testing::CapturedFixture("scontrol-show-node-json--slurmrestd-24.11.5-v0.0.42-IDLE-DRAIN--1.json"),
      "\"name\": \"cn4\"", "\"name\": \"dgx01\"");

  SUBCASE("a Slurm without --json: the text form is read") {
    harness.Answer("head", {{ping, Reply(up)},
                            {ScontrolShowNodeJsonArgv(), Reply("", 1)},
                            {ScontrolShowNodeTextArgv(), Reply(text)}});
    ValidationOutcome outcome = harness.Validate("all", {"slurm.node"});
    const CheckResult* r = Find(outcome, "slurm.node", "dgx01");
    REQUIRE(r != nullptr);
    CHECK(r->outcome == CheckOutcome::kFail);
    CHECK(r->detail == "dgx01 is down, powered down: Static node maintenance: unhealthy node is being replaced "
                       "[root@2026-03-13T04:18:07]");
    CHECK(testing::EvidenceHas(*r, "read from scontrol show node, text (scontrol show node --json: exit 1)"));
    const CheckResult* other = Find(outcome, "slurm.node", "dgx02");
    REQUIRE(other != nullptr);
    CHECK(other->detail == "dgx02 is not registered with slurmctld (scontrol show node does not list it)");
  }
  SUBCASE("the --json form where Slurm has it; the text form is not read") {
    harness.Answer("head", {{ping, Reply(up)},
                            {ScontrolShowNodeJsonArgv(), Reply(json)},
                            {ScontrolShowNodeTextArgv(), Reply(text)}});
    ValidationOutcome outcome = harness.Validate("all", {"slurm.node"});
    const CheckResult* r = Find(outcome, "slurm.node", "dgx01");
    REQUIRE(r != nullptr);
    CHECK(r->outcome == CheckOutcome::kFail);
    CHECK(r->detail == "dgx01 is drained: ECC memory error");
    CHECK(testing::EvidenceHas(*r, "read from scontrol show node --json (Slurm 24.11.5)"));
  }
  SUBCASE("neither form understood: slurm.node fails on every compute node, naming both") {
    harness.Answer("head", {{ping, Reply(up)},
                            {ScontrolShowNodeJsonArgv(), Reply("", 1)},
                            {ScontrolShowNodeTextArgv(), Reply(json)}});
    ValidationOutcome outcome = harness.Validate("all", {"slurm.node"});
    for (const char* node : {"dgx01", "dgx02"}) {
      const CheckResult* r = Find(outcome, "slurm.node", node);
      REQUIRE(r != nullptr);
      CHECK(r->outcome == CheckOutcome::kFail);
      CHECK(r->detail.find("no reading of the nodes' states: scontrol show node: not scontrol show node output") == 0);
      CHECK(r->detail.find("(and scontrol show node --json: exit 1)") != std::string::npos);
    }
  }
}

}  // namespace clusterctl
