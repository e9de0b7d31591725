// The hostile-node suite (issue 31; docs/security.md, "The hostile-node
// suite"): each way a node can misbehave, on fake nodes among well ones
// (controller/engine/fake_fleet.h), through each operation that talks to
// nodes: a deploy and a plan through the engine, a validation, and the jobs
// of `clusterctl serve`. Each case asserts that nothing throws; that the
// hostile host fails, or is marked, with its own message; that every well
// host's result is the one it has when no node is hostile; that the
// operation ends within its bound; and that the daemon still answers
// /healthz and its status after each case.
#include <doctest/doctest.h>
#include <errno.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/exec/run_command.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "controller/daemon/test_daemon.h"
#include "controller/engine/deploy_run.h"
#include "controller/engine/facts_check.h"
#include "controller/engine/fake_fleet.h"
#include "controller/state/test_util.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/validation_run.h"
#include "inventory/host_selection.h"
#include "inventory/loader.h"
#include "tests/unit/sanitizer.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

using namespace std::chrono_literals;
using testing::kSanitizerSlowdown;
using agent_protocol::ExecReply;
using agent_protocol::ExecRequest;
using agent_protocol::IncomingRequest;
using agent_protocol::ResourceRequest;
using agent_protocol::ResourceResult;
using testing::FakeFleet;
using testing::FakeNode;
using testing::Interception;

// ------------------------------------------------------------ behaviours

// Bytes that are not UTF-8 (Latin-1, bytes never in UTF-8, a broken
// sequence), then terminal escapes and control characters (a title, a
// screen clear, a lone CR, C1's CSI, DEL).
const std::string kNotUtf8 = "caf\xe9 \xff\xfe \xc3\x28";
const std::string kEscapes = "\x1b]0;owned\x07\x1b[2J\r\x9b" "1m\x7f";
const std::string kText = kNotUtf8 + " " + kEscapes + "\n";

// What the agent answers when fork() fails: its own RunCommand, with a fork
// that fails as fork does on a node out of processes.
pid_t ForkFails() {
  errno = EAGAIN;
  return -1;
}

agent::CommandResult NotForked(const std::vector<std::string>& argv) {
  agent::CommandSpec spec;
  spec.argv = argv.empty() ? std::vector<std::string>{"true"} : argv;
  return agent::RunCommand(spec, ForkFails);
}

// The operation a behaviour is set up for: a node can only be silent where
// the operation's own time limit is short enough for a unit test.
enum class Operation { kDeploy, kValidate, kDaemon };

// Each request answered by `exec` or `resource`; others (facts, reboot) as a
// well node does.
Interception Answering(const IncomingRequest& in, const std::function<ExecReply(const ExecRequest&)>& exec,
                       const std::function<ResourceResult(const ResourceRequest&)>& resource) {
  if (auto* e = std::get_if<ExecRequest>(&in.request)) return agent_protocol::EncodeExecReply(in.id, exec(*e));
  if (auto* r = std::get_if<ResourceRequest>(&in.request)) {
    return agent_protocol::EncodeResourceReply(in.id, resource(*r));
  }
  return {};
}

// Every fact a role's `when`, a template, a view or a validation reads: the
// checked list (facts_check.h, kept complete by facts_check_test.cc) and
// what is read without it, through accessors that give "unknown" for the
// wrong type: the Slurm view's shape, validation's modules and ports, and
// the daemon's summary of a node.
std::vector<std::string> FactsReadFromNodes() {
  std::vector<std::string> paths = CheckedFactPaths();
  for (const char* path : {"modules", "ib_ports", "kernel", "kernel.release", "os.pretty_name", "pci.gpu_model", "hostname"}) {
    paths.emplace_back(path);
  }
  return paths;
}

// A value of each JSON type, and the strings a count, a flag or a line must
// not be; no value: the fact is left out.
const std::vector<std::pair<const char*, std::optional<nlohmann::json>>>& WrongValues() {
  static const std::vector<std::pair<const char*, std::optional<nlohmann::json>>> values = {
      {"absent", std::nullopt},
      {"null", nullptr},
      {"true", true},
      {"-1", -1},
      {"1.5", 1.5},
      {"2^64-1", std::numeric_limits<uint64_t>::max()},
      {"a word", "many"},
      {"not UTF-8", kNotUtf8},
      {"escapes", kEscapes},
      {"a line break", "debian\nPartitionName=evil"},
      {"[]", nlohmann::json::array()},
      {"[1, {}]", nlohmann::json::array({1, nlohmann::json::object()})},
      {"{}", nlohmann::json::object()},
      {"{x: [null]}", {{"x", {nullptr}}}},
  };
  return values;
}

// `facts` with the value at dotted `path` replaced (left out without a
// value), its sections made when missing; `list[]` is the list's first
// element (a list of one section made when there is none).
nlohmann::json Spoiled(nlohmann::json facts, const std::string& path, const std::optional<nlohmann::json>& value) {
  const std::vector<std::string> keys = Split(path, '.');
  nlohmann::json* at = &facts;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    if (EndsWith(keys[i], "[]")) {
      nlohmann::json& list = (*at)[keys[i].substr(0, keys[i].size() - 2)];
      if (!list.is_array() || list.empty() || !list[0].is_object()) list = nlohmann::json::array({nlohmann::json::object()});
      at = &list[0];
      continue;
    }
    if (!(*at)[keys[i]].is_object()) (*at)[keys[i]] = nlohmann::json::object();
    at = &(*at)[keys[i]];
  }
  if (value) {
    (*at)[keys.back()] = *value;
  } else {
    at->erase(keys.back());
  }
  return facts;
}

struct Hostile {
  const char* what;
  std::function<void(FakeNode&, Operation)> make;  // turns a well node into this
  // A deploy on it: "ok", or "failed"/"unreachable" with `says` in its error.
  const char* deploy_outcome;
  const char* says;
};

// Non-UTF-8 and escapes in every text the node returns.
void ReturnsHostileText(FakeNode& node, Operation) {
  // Hostile text in the facts that nothing bounds (a fact the roles
  // or views read has a syntax: hostile text there is an impossible
  // value, the suite's "right type, impossible value" case below).
  node.facts["hostname"] = kText;
  node.facts["os"]["pretty_name"] = kText;
  node.facts["kernel"]["release"] = kText;
  node.facts["pci"]["gpu_model"] = kText;
  node.facts["modules"] = {kText};
  node.open_notes = {"host key " + kText};
  node.intercept = [](const IncomingRequest& in) {
    return Answering(
        in,
        [](const ExecRequest&) {
          ExecReply reply;
          reply.exit_code = 1;
          reply.stdout_data = kText;
          reply.stderr_data = kText;
          return reply;
        },
        [](const ResourceRequest&) {
          ResourceResult failed;
          failed.Differs(kText);
          failed.Fail("step: " + kText);
          failed.failed_command = kText;
          failed.output = kText;
          return failed;
        });
  };
}

// Huge outputs from every command and step.
void ReturnsHugeOutputs(FakeNode& node, Operation) {
  node.intercept = [](const IncomingRequest& in) {
    return Answering(
        in,
        [](const ExecRequest&) {
          ExecReply reply;  // one line of 4 MiB, and 4 million empty ones
          reply.exit_code = 0;
          reply.truncated = true;
          reply.stdout_data = std::string(4u << 20, 'x');
          reply.stderr_data = std::string(4u << 20, '\n');
          return reply;
        },
        [](const ResourceRequest&) {
          ResourceResult failed;  // more than the agent sends (4000 bytes): a hostile one
          failed.Fail("step: " + std::string(1u << 20, 'e'));
          failed.output = std::string(4u << 20, 'o');
          return failed;
        });
  };
}

// Every command fails to fork.
void CannotFork(FakeNode& node, Operation) {
  node.intercept = [](const IncomingRequest& in) {
    return Answering(
        in,
        [](const ExecRequest& e) {
          const agent::CommandResult result = NotForked(e.argv);
          ExecReply reply;
          reply.exit_code = result.exit_code;
          reply.started = result.started;
          reply.stderr_data = result.stderr_data;
          return reply;
        },
        [](const ResourceRequest& r) {
          // As RunOrFail (agent/resources/resource.cc) reports it.
          const agent::CommandResult result = NotForked({r.kind});
          ResourceResult failed;
          failed.Fail(r.kind + " could not be started");
          failed.failed_command = r.kind;
          failed.output = result.stderr_data;
          return failed;
        });
  };
}

// Never answers once connected.
void GoesSilent(FakeNode& node, Operation op) {
  // A deploy's facts wait 60 s and a daemon job's steps an hour: the
  // deploy's node goes silent after its facts (steps time out after
  // 200 ms here); the daemon's case is stopped (the daemon test below).
  // Its shutdown is answered: a close after a timeout waits up to
  // 2 s more for it (AgentSession::Close), which is time, not a case.
  node.answer_delay = [op](const IncomingRequest& in) {
    if (std::holds_alternative<agent_protocol::ShutdownRequest>(in.request)) return 0ms;
    const bool facts = std::holds_alternative<agent_protocol::FactsRequest>(in.request);
    return facts && op != Operation::kValidate ? 0ms : std::chrono::milliseconds(24h);
  };
}

const std::vector<Hostile>& HostileBehaviours() {
  static const std::vector<Hostile> behaviours = {
      {"non-UTF-8 and escapes in every text it returns", ReturnsHostileText, "failed", "step: caf"},
      {"huge outputs from every command and step", ReturnsHugeOutputs, "failed", "step: eee"},
      {"every command fails to fork", CannotFork, "failed", "could not be started"},
      {"refuses connections with a hostile banner",
       [](FakeNode& node, Operation) { node.refusal = "SSH-2.0-" + kText + ": banner exchange failed"; },
       "unreachable", "SSH-2.0-caf"},
      {"every fact read of a wrong type at once",
       [](FakeNode& node, Operation) {
         // A list holding a number and a section: no section, count, flag, line or list of lines.
         for (const std::string& path : FactsReadFromNodes()) {
           node.facts = Spoiled(node.facts, path, nlohmann::json::array({1, nlohmann::json::object()}));
         }
       },
       "failed", "the node's facts cannot be used: "},
      {"slow: every answer takes 5 ms",
       [](FakeNode& node, Operation) { node.answer_delay = [](const IncomingRequest&) { return 5ms; }; },
       "ok", ""},
      {"silent: never answers once connected", GoesSilent, "unreachable",
       "no answer from the agent within the deadline"},
  };
  return behaviours;
}

// Facts as a node with a GPU, an adapter and a driver sends them, so that
// the roles' and validation's readings of each fact are reached.
nlohmann::json WellFacts(const std::string& host) {
  nlohmann::json facts = testing::FakeFacts(host, 1);
  facts["os"] = {{"id", "debian"}, {"family", "debian"}, {"version_id", "12"}, {"version_codename", "bookworm"}};
  facts["pci"]["hca_count"] = 1;
  facts["pci"]["ib_hca_count"] = 1;
  facts["pci"]["nvswitch_count"] = 0;
  facts["network_stack"] = "systemd-networkd";
  facts["nvidia_driver"] = "550.54.15";
  facts["peer_memory"] = "nvidia_peermem";
  facts["kernels"] = {{"installed", {"6.1.0"}}};
  facts["gpudirect"] = {{"kernel_modules", "open"}, {"recommended", "dmabuf"}, {"dmabuf", true}};
  facts["nfs"] = {{"kernel_client", true}};
  facts["modules"] = {"nvidia", "nvidia_peermem"};
  facts["ib_ports"] = {{{"device", "mlx5_0"}, {"port", 1}, {"state", "4: ACTIVE"}, {"phys_state", "5: LinkUp"},
                        {"rate_gbps", 400}, {"rate_text", "400 Gb/sec"}, {"link_layer", "InfiniBand"}}};
  return facts;
}

// ------------------------------------------------------------ the cluster

// ok01 is the controller, ok02 and the hostile hosts compute nodes;
// `host_vars` holds a host's variables, as YAML flow text.
std::string InventoryText(const std::vector<std::string>& hostile, const std::map<std::string, std::string>& host_vars = {}) {
  std::string text = "cluster: t\nconnection: {user: root}\nhosts:\n";
  text += "  ok01: {address: 10.9.0.1}\n  ok02: {address: 10.9.0.2}\n";
  for (size_t i = 0; i < hostile.size(); ++i) {
    auto vars = host_vars.find(hostile[i]);
    text += "  " + hostile[i] + ": {address: 10.9.1." + std::to_string(i + 1) +
            (vars == host_vars.end() ? "" : ", vars: " + vars->second) + "}\n";
  }
  text += "groups:\n  controller: {hosts: [ok01]}\n  compute: {hosts: [ok02";
  for (const std::string& h : hostile) text += ", " + h;
  return text + "]}\n";
}

// A step on every node, and a file on the controller from the Slurm view,
// which reads every compute node's shape from its facts.
const char* kStepRole = R"(description: one step on every node
applies_to: [all]
steps:
  - name: step
    command: {argv: [step]}
)";
const char* kViewRole = R"(description: the Slurm view's nodes, on the controller
applies_to: [controller]
steps:
  - name: nodes
    file: {path: /etc/nodes, content: "known={{cluster.slurm.node_names}} unknown={{cluster.slurm.unknown}}\n"}
)";
// The built-in roles that read `facts.` (in a `when`, a loop or a template
// argument), found in roles/ as facts_check_test.cc finds the facts.
std::vector<std::string> FactReadingRoles() {
  std::vector<std::string> roles;
  for (const auto& entry : std::filesystem::directory_iterator(testing::SourceDir() + "/roles")) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("facts.") != std::string::npos) roles.push_back(entry.path().stem().string());
  }
  return roles;
}

// `run`'s result within 20 s (times kSanitizerSlowdown), or the whole test
// binary ends: a hang is a failure.
template <typename F>
auto Bounded(F run, const char* what) {
  auto future = std::async(std::launch::async, run);
  if (future.wait_for(20s * kSanitizerSlowdown) != std::future_status::ready) {
    std::fprintf(stderr, "FAIL: %s did not end within 20 s (a host waits forever)\n", what);
    std::_Exit(3);
  }
  return future.get();
}

// A deploy (or plan) and a validation on the fake fleet, each bounded.
class Cluster {
 public:
  explicit Cluster(const std::vector<std::string>& hostile = {"bad"}, const std::map<std::string, std::string>& host_vars = {}) {
    std::filesystem::create_directories(dir_.path() + "/roles");
    std::ofstream(dir_.path() + "/roles/step.yaml") << kStepRole;
    std::ofstream(dir_.path() + "/roles/view.yaml") << kViewRole;
    std::ofstream(dir_.path() + "/inventory.yaml") << InventoryText(hostile, host_vars);
    Diagnostics diagnostics;
    inventory_ = LoadInventory(dir_.path() + "/inventory.yaml", diagnostics);
    REQUIRE_MESSAGE(inventory_, diagnostics.ToString());
    catalog_ = Catalog::Load({{testing::SourceDir() + "/roles", dir_.path() + "/roles"},
                              {testing::SourceDir() + "/templates"}},
                             diagnostics);
    REQUIRE_MESSAGE(catalog_, diagnostics.ToString());
    for (const Host& host : inventory_->hosts) fleet.Add(host.name).facts = WellFacts(host.name);
  }

  std::vector<std::string> well() const { return {"ok01", "ok02"}; }

  // A deploy of the site roles (check: a plan of them and the built-in roles
  // that read facts), steps timing out after 200 ms.
  DeploymentResult Deploy(bool check) {
    SystemClock clock;
    SystemFilesystemProbe probe;
    auto state = StateStore::OpenForWriting(StatePaths{dir_.path() + "/state"}, {&clock, &probe, "test"});
    REQUIRE_MESSAGE(state.ok(), state.status().message());
    std::vector<std::pair<std::string, std::string>> names;
    std::vector<const Host*> hosts;
    for (const Host& h : inventory_->hosts) {
      names.emplace_back(h.name, h.address);
      hosts.push_back(&h);
    }
    REQUIRE((*state)->SyncInventoryHosts(names).ok());
    auto run = (*state)->BeginRun("deploy", "test");
    REQUIRE(run.ok());
    DeploymentOptions options;
    options.check = check;
    options.verify = true;  // facts gathered every time
    options.roles = {"step", "view"};
    if (check) {
      static const std::vector<std::string> reading = FactReadingRoles();
      options.roles.insert(options.roles.end(), reading.begin(), reading.end());
      // And the roles that write what the Slurm and health views build from
      // the nodes' facts (slurm.conf, gres.conf, the health check's file).
      // (slurm-health's file is the health view's: cluster_views_test.cc.)
      for (const char* role : {"slurm-common", "slurm-node"}) options.roles.emplace_back(role);
    }
    options.execution.step_timeout = 200ms;
    DeploymentInputs inputs{&*inventory_, &*catalog_, hosts, state->get(), *run, options};
    RecordingListener events;
    CancelToken cancel;
    DeploymentResult result = Bounded([&] { return RunDeployment(inputs, fleet, events, cancel); }, "the deploy");
    (*state)->FinishRun(*run, result.converged() ? RunStatus::kOk : RunStatus::kFailed, {});
    return result;
  }

  // A validation of every check, with a deadline of 2 s (fake nodes answer
  // at once; a silent one is given up at the deadline).
  ValidationOutcome Validate() {
    auto selected = SelectHosts(*inventory_, "all");
    REQUIRE(selected.ok());
    auto selection = CheckSelection::Parse({});
    REQUIRE(selection.ok());
    ValidationInputs inputs;
    inputs.inventory = &*inventory_;
    inputs.selected = *selected;
    inputs.checks = *selection;
    inputs.deadline = 2s;
    inputs.run_on = [this](const std::vector<const Host*>& hosts, const RemoteRunner::HostBody& body) {
      return RunOnHosts(fleet, hosts, body);
    };
    return Bounded([&] { return RunValidation(inputs); }, "the validation");
  }

  FakeFleet fleet;

 private:
  testing::TempDir dir_;
  std::optional<Inventory> inventory_;
  std::optional<Catalog> catalog_;
};

const HostReport* ReportOf(const DeploymentResult& result, const std::string& host) {
  for (const HostReport& r : result.hosts) {
    if (r.host == host) return &r;
  }
  return nullptr;
}

// A host's verdicts in a validation ("munge.decode pass"), in report order.
// (Not what they measured: the controller's munge.decode counts the nodes
// whose credentials it decoded, the hostile one among them.)
std::vector<std::string> ResultsOf(const ValidationOutcome& outcome, const std::string& host) {
  std::vector<std::string> lines;
  for (const CheckResult& r : outcome.results) {
    if (r.subject == host) lines.push_back(r.check + " " + JsonText(r.ToJson()["result"]));
  }
  return lines;
}

// The lines of `a` not in `b`, and of `b` not in `a`, for a failure's message.
std::string Difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::string out;
  for (const std::string& line : a) {
    if (std::find(b.begin(), b.end(), line) == b.end()) out += "\n  now:  " + line.substr(0, 600);
  }
  for (const std::string& line : b) {
    if (std::find(a.begin(), a.end(), line) == a.end()) out += "\n  well: " + line.substr(0, 600);
  }
  return out;
}

const CheckResult* Find(const ValidationOutcome& outcome, const std::string& check, const std::string& subject) {
  for (const CheckResult& r : outcome.results) {
    if (r.check == check && r.subject == subject) return &r;
  }
  return nullptr;
}

// What each well host ends with when no node is hostile.
struct Baseline {
  std::map<std::string, std::string> deploy;  // host -> outcome
  std::map<std::string, std::vector<std::string>> validation;
};

const Baseline& WellBaseline() {
  static const Baseline baseline = [] {
    Baseline b;
    Cluster cluster;
    DeploymentResult deployed = cluster.Deploy(false);
    const ValidationOutcome validated = cluster.Validate();
    for (const char* host : {"ok01", "ok02", "bad"}) {
      b.deploy[host] = ReportOf(deployed, host) ? ToString(ReportOf(deployed, host)->outcome) : "none";
      b.validation[host] = ResultsOf(validated, host);
    }
    return b;
  }();
  return baseline;
}

// One behaviour on a cluster of its own: `run` on it, timed.
template <typename Result>
struct Ran {
  std::unique_ptr<Cluster> cluster;
  Result result;
  std::chrono::milliseconds took{0};
  std::string thrown;  // what `run` threw, if it did
};

// `run` for each behaviour, side by side: each case's waits (a silent node's
// time-outs) are not added to the others'.
template <typename Result>
std::vector<Ran<Result>> EachBehaviour(Operation op, const std::function<Result(Cluster&)>& run) {
  std::vector<std::future<Ran<Result>>> running;
  for (const Hostile& hostile : HostileBehaviours()) {
    running.push_back(std::async(std::launch::async, [&hostile, op, &run] {
      Ran<Result> ran;
      ran.cluster = std::make_unique<Cluster>();
      hostile.make(ran.cluster->fleet.node("bad"), op);
      const auto start = std::chrono::steady_clock::now();
      try {
        ran.result = run(*ran.cluster);
      } catch (const std::exception& e) {
        ran.thrown = e.what();
      }
      ran.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      return ran;
    }));
  }
  std::vector<Ran<Result>> done;
  for (auto& r : running) done.push_back(r.get());
  return done;
}

}  // namespace

// ------------------------------------------------------------ the engine

TEST_CASE("hostile nodes: each behaviour fails its host alone in a deploy and a plan; the others converge") {
  const Baseline& baseline = WellBaseline();
  REQUIRE(baseline.deploy.at("ok01") == "ok");
  REQUIRE(baseline.deploy.at("bad") == "ok");
  for (bool check : {false, true}) {
    const auto ran =
        EachBehaviour<DeploymentResult>(Operation::kDeploy, [check](Cluster& c) { return c.Deploy(check); });
    for (size_t i = 0; i < ran.size(); ++i) {
      const Hostile& hostile = HostileBehaviours()[i];
      const std::string behaviour = hostile.what;
      CAPTURE(behaviour);
      CAPTURE(check);
      Cluster& cluster = *ran[i].cluster;
      const DeploymentResult& result = ran[i].result;
      CHECK_MESSAGE(ran[i].thrown.empty(), ran[i].thrown);
      CHECK(ran[i].took < 5s * kSanitizerSlowdown);
      REQUIRE_MESSAGE(result.ending == DeploymentResult::Ending::kCompleted, result.error);
      const HostReport* bad = ReportOf(result, "bad");
      REQUIRE(bad != nullptr);
      CHECK(ToString(bad->outcome) == std::string(hostile.deploy_outcome));
      CHECK_MESSAGE(bad->error.find(hostile.says) != std::string::npos, bad->error);
      for (const std::string& host : cluster.well()) {
        CAPTURE(host);
        REQUIRE(ReportOf(result, host) != nullptr);
        CHECK(ReportOf(result, host)->outcome == HostOutcome::kOk);
      }
      if (!check) {
        CHECK(cluster.fleet.node("ok02").applied.size() == 1);
        // The Slurm view knows the hostile node by its facts, or marks it unknown.
        const std::string nodes = cluster.fleet.node("ok01").files.at("/etc/nodes");
        CHECK_MESSAGE((nodes == "known=bad,ok02 unknown=\n" || nodes == "known=ok02 unknown=bad\n"), nodes);
      }
    }
  }
}

namespace {

// One row of wrong values: one hostile host per field read, all in one
// cluster beside two well hosts, through a deploy, a plan and a validation.
struct WrongFactsRun {
  std::unique_ptr<Cluster> cluster;
  std::vector<std::string> hostile;                          // by field
  std::map<std::string, std::vector<std::string>> problems;  // host -> what FactsProblems says
  DeploymentResult deployed, planned;
  ValidationOutcome validated;
  std::string thrown;
};

WrongFactsRun RunWrongFacts(const std::vector<std::string>& fields, const std::optional<nlohmann::json>& value) {
  WrongFactsRun run;
  for (size_t i = 0; i < fields.size(); ++i) run.hostile.push_back("f" + std::to_string(i));
  run.cluster = std::make_unique<Cluster>(run.hostile);
  for (size_t i = 0; i < fields.size(); ++i) {
    FakeNode& node = run.cluster->fleet.node(run.hostile[i]);
    node.facts = Spoiled(node.facts, fields[i], value);
    // As they reach the controller: the protocol's JSON replaces bytes
    // that are not UTF-8 (U+FFFD), which a line may hold.
    run.problems[run.hostile[i]] = FactsProblems(nlohmann::json::parse(JsonText(node.facts)));
  }
  try {
    run.deployed = run.cluster->Deploy(false);
    run.planned = run.cluster->Deploy(true);
    run.validated = run.cluster->Validate();
  } catch (const std::exception& e) {
    run.thrown = e.what();
  }
  return run;
}

}  // namespace

TEST_CASE("hostile nodes: facts of every wrong type in every field read fail or mark that node alone") {
  const std::vector<std::string> fields = FactsReadFromNodes();
  std::vector<std::future<WrongFactsRun>> running;  // the rows side by side
  for (const auto& row : WrongValues()) {
    running.push_back(std::async(std::launch::async, RunWrongFacts, std::cref(fields), std::cref(row.second)));
  }
  for (size_t row = 0; row < running.size(); ++row) {
    const std::string wrong = WrongValues()[row].first;
    CAPTURE(wrong);
    const WrongFactsRun run = running[row].get();
    CHECK_MESSAGE(run.thrown.empty(), run.thrown);
    for (const DeploymentResult* result : {&run.deployed, &run.planned}) {
      const bool check = result == &run.planned;
      CAPTURE(check);
      REQUIRE_MESSAGE(result->ending == DeploymentResult::Ending::kCompleted, result->error);
      for (const std::string& host : run.cluster->well()) CHECK(ReportOf(*result, host)->outcome == HostOutcome::kOk);
      for (size_t i = 0; i < fields.size(); ++i) {
        CAPTURE(fields[i]);
        const HostReport* report = ReportOf(*result, run.hostile[i]);
        REQUIRE(report != nullptr);
        const std::vector<std::string>& problems = run.problems.at(run.hostile[i]);
        if (problems.empty()) {
          CHECK(report->outcome == HostOutcome::kOk);  // a fact nothing reads unguarded: no reason to fail
        } else {
          CHECK(report->outcome == HostOutcome::kFailed);
          CHECK_MESSAGE(report->error.find(problems.front()) != std::string::npos, report->error);
        }
      }
    }
    // The Slurm view lists the nodes whose shape it reads, and marks the others unknown.
    const std::string nodes = run.cluster->fleet.node("ok01").files.at("/etc/nodes");
    CAPTURE(nodes);
    CHECK(nodes.rfind("known=", 0) == 0);
    CHECK(nodes.find("ok02") != std::string::npos);
    for (const std::string& host : run.cluster->well()) {
      CAPTURE(host);
      CHECK_MESSAGE(ResultsOf(run.validated, host) == WellBaseline().validation.at(host),
                    Difference(ResultsOf(run.validated, host), WellBaseline().validation.at(host)));
    }
    for (const std::string& host : run.hostile) CHECK(Find(run.validated, "reachable", host) != nullptr);
  }
}

namespace {

// One hostile host per value: the facts' own edge cases (facts_check.h,
// generated from the table's bounds: every fact a view, a role's `when`, a
// loop or a template reads), and a value inside the bounds that a view
// still cannot use (memory its Slurm reserve takes whole).
struct ImpossibleCase {
  std::string path;
  nlohmann::json value;
  bool allowed;
  std::string what;
  std::string says;  // in the host's error when it is refused: the fact as shown there
  std::string host_vars = "";  // the host's variables (YAML flow), if any
};

std::vector<ImpossibleCase> ImpossibleCases() {
  std::vector<ImpossibleCase> cases;
  for (const FactValueCase& c : FactValueCases()) {
    std::string shown = c.path;
    for (size_t at = shown.find("[]"); at != std::string::npos; at = shown.find("[]")) shown.replace(at, 2, "[0]");
    if (c.value.is_array()) shown += "[0]";  // a list of texts names its element
    // What reaches the controller: the agent protocol's JSON replaces bytes
    // that are not UTF-8 with U+FFFD, which a line may hold and a word not.
    const nlohmann::json sent = nlohmann::json::parse(JsonText(c.value));
    const bool allowed = sent == c.value ? c.allowed : FactsProblems(Spoiled(WellFacts("n"), c.path, sent)).empty();
    cases.push_back({c.path, sent, allowed, c.what, shown + " is "});
  }
  cases.push_back({"memory.total_mib", 4000, false, "less than the host's Slurm reserve",
                   "cluster.slurm: memory.total_mib is 4000 MiB, and its slurm_memory_reserve_mib (4096 MiB)",
                   "{slurm_memory_reserve_mib: 4096}"});
  return cases;
}

struct ImpossibleRun {
  std::unique_ptr<Cluster> cluster;
  std::vector<std::string> hostile;  // by case
  DeploymentResult deployed, planned;
  std::string thrown;
};

ImpossibleRun RunImpossible(const std::vector<ImpossibleCase>& cases, size_t first, size_t count) {
  ImpossibleRun run;
  std::map<std::string, std::string> host_vars;
  for (size_t i = 0; i < count; ++i) {
    run.hostile.push_back("v" + std::to_string(first + i));
    if (!cases[first + i].host_vars.empty()) host_vars[run.hostile.back()] = cases[first + i].host_vars;
  }
  run.cluster = std::make_unique<Cluster>(run.hostile, host_vars);
  for (size_t i = 0; i < count; ++i) {
    FakeNode& node = run.cluster->fleet.node(run.hostile[i]);
    node.facts = Spoiled(node.facts, cases[first + i].path, cases[first + i].value);
  }
  try {
    run.deployed = run.cluster->Deploy(false);
    run.planned = run.cluster->Deploy(true);
  } catch (const std::exception& e) {
    run.thrown = e.what();
  }
  return run;
}

}  // namespace

TEST_CASE("hostile nodes: facts of the right type but an impossible value fail that node alone, naming the fact") {
  // 1780b34: `memory.total_mib: 100` or a kernel named `6.1 x` ended the
  // whole plan and deploy (exit 2, "nothing was changed").
  const std::vector<ImpossibleCase> cases = ImpossibleCases();
  REQUIRE(cases.size() > 60);
  constexpr size_t kPerCluster = 24;
  std::vector<std::future<ImpossibleRun>> running;  // clusters side by side
  for (size_t first = 0; first < cases.size(); first += kPerCluster) {
    running.push_back(std::async(std::launch::async, RunImpossible, std::cref(cases), first,
                                 std::min(kPerCluster, cases.size() - first)));
  }
  size_t first = 0;
  for (auto& future : running) {
    const ImpossibleRun run = future.get();
    CHECK_MESSAGE(run.thrown.empty(), run.thrown);
    for (const DeploymentResult* result : {&run.deployed, &run.planned}) {
      const bool check = result == &run.planned;
      CAPTURE(check);
      REQUIRE_MESSAGE(result->ending == DeploymentResult::Ending::kCompleted, result->error);
      for (const std::string& host : run.cluster->well()) CHECK(ReportOf(*result, host)->outcome == HostOutcome::kOk);
      for (size_t i = 0; i < run.hostile.size(); ++i) {
        const ImpossibleCase& c = cases[first + i];
        const std::string fact = c.path + " " + c.what + ": " + Printable(JsonText(c.value), 80);
        CAPTURE(fact);
        const HostReport* report = ReportOf(*result, run.hostile[i]);
        REQUIRE(report != nullptr);
        if (c.allowed) {
          CHECK_MESSAGE(report->outcome == HostOutcome::kOk, report->error);
        } else {
          CHECK(report->outcome == HostOutcome::kFailed);
          CHECK_MESSAGE(report->error.find(c.says) != std::string::npos, report->error);
        }
      }
    }
    // The cluster's Slurm view keeps the well compute node and leaves out
    // every node it could not read.
    const std::string nodes = run.cluster->fleet.node("ok01").files.at("/etc/nodes");
    CAPTURE(nodes);
    CHECK(nodes.rfind("known=", 0) == 0);
    CHECK(nodes.find("ok02") != std::string::npos);
    first += run.hostile.size();
  }
}

// ------------------------------------------------------------ validation

TEST_CASE("hostile nodes: each behaviour leaves a validation of the others as it is without it") {
  const Baseline& baseline = WellBaseline();
  const auto ran = EachBehaviour<ValidationOutcome>(Operation::kValidate, [](Cluster& c) { return c.Validate(); });
  for (size_t i = 0; i < ran.size(); ++i) {
    const Hostile& hostile = HostileBehaviours()[i];
    const std::string behaviour = hostile.what;
    CAPTURE(behaviour);
    Cluster& cluster = *ran[i].cluster;
    const ValidationOutcome& outcome = ran[i].result;
    CHECK_MESSAGE(ran[i].thrown.empty(), ran[i].thrown);
    CHECK(ran[i].took < 5s * kSanitizerSlowdown);
    for (const std::string& host : cluster.well()) {
      CAPTURE(host);
      CHECK_MESSAGE(ResultsOf(outcome, host) == baseline.validation.at(host),
                    Difference(ResultsOf(outcome, host), baseline.validation.at(host)));
    }
    // What the hostile node says is no reading: nothing passes that did not
    // pass on it well. (Where neither ibstat nor ibv_devinfo starts, ib.ports
    // reads the ports from the facts, sysfs, by design.)
    const std::vector<std::string>& well_bad = baseline.validation.at("bad");
    for (const CheckResult& r : outcome.results) {
      if (r.subject != "bad" || r.outcome != CheckOutcome::kPass || r.check == "ib.ports") continue;
      CHECK_MESSAGE(std::find(well_bad.begin(), well_bad.end(), r.check + " \"pass\"") != well_bad.end(), r.check);
    }
    const CheckResult* reachable = Find(outcome, "reachable", "bad");
    REQUIRE(reachable != nullptr);
    if (std::string(hostile.deploy_outcome) == "unreachable") {
      CHECK(reachable->outcome == CheckOutcome::kFail);
      CHECK_MESSAGE(reachable->detail.find(hostile.says) != std::string::npos, reachable->detail);
    } else if (std::string(hostile.deploy_outcome) == "ok") {
      CHECK(ResultsOf(outcome, "bad") == baseline.validation.at("bad"));
    }
  }
}

// ------------------------------------------------------------ the daemon

namespace {

// Whether /healthz and the status document answer (node02 of the test
// daemon's three is hostile; node01 and node03 are well).
bool Serving(testing::TestDaemon& t) {
  const std::string health = t.Exchange(testing::Request("GET", "/healthz", "Connection: close\r\n"));
  const std::string status = t.Get("/api/v1/status", "Bearer " + t.token);
  return testing::StatusOf(health) == 200 && testing::StatusOf(status) == 200 &&
         !nlohmann::json::parse(testing::BodyOf(status), nullptr, false).is_discarded();
}

// A host's last validation as the daemon shows it, less when and which run.
std::string Verdicts(const nlohmann::json& validation) {
  nlohmann::json verdicts = {{"result", validation.value("result", "")},
                             {"pass", validation.value("pass", -1)},
                             {"fail", validation.value("fail", -1)},
                             {"skip", validation.value("skip", -1)}};
  for (const auto& failed : validation.value("failed", nlohmann::json::array())) {
    verdicts["failed"].push_back({failed.value("check", ""), failed.value("detail", "")});
  }
  return JsonText(verdicts);
}

// The job as /api/v1/jobs shows it once it has ended (null after 20 s).
nlohmann::json EndedJob(testing::TestDaemon& t, int64_t job) {
  for (int i = 0; i < 2000; ++i) {
    const nlohmann::json jobs = nlohmann::json::parse(testing::BodyOf(t.Get("/api/v1/jobs", "Bearer " + t.token)));
    for (const auto& j : jobs["recent"]) {
      if (j["job"] == job) return j;
    }
    std::this_thread::sleep_for(10ms);
  }
  return nullptr;
}

// Starts a job at `path`, waiting while another runs (the daemon's own
// drift check, due 10 s after its start, which a sanitizer build reaches;
// stopped when `waiting`: it waits on the silent node); its number.
int64_t StartJob(testing::TestDaemon& t, const char* path, const char* body, const std::atomic<bool>& waiting) {
  for (int i = 0; i < 2000; ++i) {
    const std::string response = t.Post(path, body);
    if (testing::StatusOf(response) == 202) {
      return nlohmann::json::parse(testing::BodyOf(response)).value("job", int64_t{0});
    }
    REQUIRE_MESSAGE(testing::StatusOf(response) == 409, response);
    if (waiting) t.Post("/api/v1/stop", R"({"grace_s":0})");
    std::this_thread::sleep_for(10ms);
  }
  FAIL("no job could start in 20 s");
  return int64_t{0};
}

// A hostile node as the daemon shows it after a deploy and a validation:
// the outcome and error `hostile` predicts, and a validation row.
void CheckHostileNodeShown(const Hostile& hostile, const nlohmann::json& bad) {
  const std::string behaviour = hostile.what;
  CAPTURE(behaviour);
  REQUIRE(bad.is_object());
  CHECK(bad["state"] == hostile.deploy_outcome);
  const std::string detail = JsonText(bad["detail"]);
  CHECK_MESSAGE(detail.find(hostile.says) != std::string::npos, detail.substr(0, 300));
  CHECK(bad["validation"].is_object());
}

// Makes `node` silent, setting `waiting` once a request waits on it.
void MakeSilentAndWatched(FakeNode& node, const Hostile& silent, std::atomic<bool>& waiting) {
  std::lock_guard<std::mutex> lock(node.mutex());
  silent.make(node, Operation::kDaemon);
  node.answer_delay = [delay = node.answer_delay, &waiting](const IncomingRequest& in) {
    const std::chrono::milliseconds d = delay(in);
    if (d > 1h) waiting = true;
    return d;
  };
}

}  // namespace

TEST_CASE("hostile nodes: the daemon's deploy and validate jobs end, fail only the hostile nodes, and it serves on") {
  // node01 and node09 are well; node02 to node08 each show one behaviour,
  // all in the same jobs.
  const std::vector<Hostile>& behaviours = HostileBehaviours();
  REQUIRE(behaviours.size() == 7);
  auto hostile_node = [](size_t i) { return "node0" + std::to_string(i + 2); };
  const std::vector<std::string> well_nodes = {"node01", "node09"};
  FakeFleet fleet;
  for (int i = 1; i <= 9; ++i) fleet.Add("node0" + std::to_string(i));
  testing::TestDaemon t(&fleet, testing::kEchoRole, 9);
  const std::string auth = "Bearer " + t.token;
  auto host = [&](const std::string& name) {
    return nlohmann::json::parse(testing::BodyOf(t.Get("/api/v1/hosts/" + name, auth)), nullptr, false);
  };
  int64_t job = 0;  // the last job started
  std::atomic<bool> waiting{false};  // a job waits on the silent node
  auto start = [&](const char* path, const char* body) { return job = StartJob(t, path, body, waiting); };
  auto deploy = [&] { return EndedJob(t, start("/api/v1/deploy", R"({"verify":true})")); };
  auto validate = [&] { return EndedJob(t, start("/api/v1/validate", R"({"checks":["reachable","clock.offset"]})")); };

  // A validation of well nodes first: what a well node shows. (A job costs
  // seconds under the sanitizers: hashing the agent's build in RunSession::Open.)
  REQUIRE(validate().is_object());
  const nlohmann::json well = host("node01");
  REQUIRE(well["validation"]["pass"] == 1);  // reachable; the fake's chronyc says nothing
  auto check_well_nodes = [&](bool validated) {
    for (const std::string& name : well_nodes) {
      CAPTURE(name);
      CHECK(fleet.node(name).applied.size() == 1);  // applied once, by the first deploy
      const nlohmann::json now = host(name);
      CHECK(now["state"] == "ok");
      if (validated) CHECK(Verdicts(now["validation"]) == Verdicts(well["validation"]));
    }
  };

  // Every behaviour but silence at once, through a deploy and a validation.
  for (size_t i = 0; i + 1 < behaviours.size(); ++i) {
    FakeNode& node = fleet.node(hostile_node(i));
    std::lock_guard<std::mutex> lock(node.mutex());
    behaviours[i].make(node, Operation::kDaemon);
  }
  const nlohmann::json deployed = deploy();
  REQUIRE(deployed.is_object());
  CHECK(deployed["status"] == "failed");
  CHECK(Serving(t));
  const nlohmann::json validated = validate();
  REQUIRE(validated.is_object());
  CHECK(validated["status"] == "failed");
  CHECK(Serving(t));
  t.daemon->Tick();  // logs the finished jobs
  CHECK(t.log.str().find("job " + std::to_string(job) + ":") != std::string::npos);
  check_well_nodes(true);
  for (size_t i = 0; i + 1 < behaviours.size(); ++i) CheckHostileNodeShown(behaviours[i], host(hostile_node(i)));

  // A silent node: a step that will never be answered (the daemon's step
  // timeout is an hour). The daemon serves meanwhile, and a stop ends the job.
  const Hostile& silent = behaviours.back();
  CAPTURE(silent.what);
  MakeSilentAndWatched(fleet.node("node08"), silent, waiting);
  start("/api/v1/deploy", R"({"verify":true})");
  waiting = false;  // (a drift check stopped by start() waited on it too)
  for (int i = 0; i < 500 && !waiting; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(waiting);
  CHECK(Serving(t));
  REQUIRE(testing::StatusOf(t.Post("/api/v1/stop", R"({"grace_s":0})")) == 202);
  const nlohmann::json stopped = EndedJob(t, job);
  REQUIRE(stopped.is_object());
  CHECK(stopped["status"] == "stopped");
  CHECK(Serving(t));
  check_well_nodes(false);
}

}  // namespace clusterctl
