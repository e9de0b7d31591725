// The run pipeline (run_request.h, run_pipeline.h, command_run.h) on a fleet
// of fake nodes (engine/fake_fleet.h): a request prepared from the words an
// admin types (--limit, --checks), run over the SessionFactory and
// completed into the state, as the command line and the daemon do it.
#include "controller/run/run_pipeline.h"

#include <doctest/doctest.h>

#include <fstream>

#include "common/strings.h"
#include "controller/engine/fake_fleet.h"
#include "controller/run/command_run.h"
#include "controller/state/test_util.h"
#include "controller/validate/catalogue.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/scontrol_nodes.h"
#include "inventory/loader.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

const SystemClock kSystemClock;

// A Slurm cluster of three CPU nodes: the controller (also the submit host)
// and two compute nodes.
const char* kSlurmCluster = R"(cluster: t
connection: {user: root}
hosts:
  head: {address: 10.9.0.1}
  node01: {address: 10.9.0.2}
  node02: {address: 10.9.0.3}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [node01, node02]}
)";

const char* kTracking =
    "Reference ID    : 0AD54D0B (10.213.77.11)\nStratum         : 3\n"
    "System time     : 0.000005916 seconds slow of NTP time\nLeap status     : Normal\n";

// `scontrol show node` (text) of idle nodes, in the form of the captures
// (tests/fixtures/captured/scontrol-show-node--*.txt).
std::string ScontrolShowNode(const std::vector<std::string>& nodes) {
  std::string text;
  for (const std::string& node : nodes) {
    text += "NodeName=" + node + " Arch=x86_64 CoresPerSocket=4\n   CPUAlloc=0 CPUTot=4 CPULoad=0.01\n"
            "   NodeAddr=" + node + " NodeHostName=" + node + " Version=23.02.4\n"
            "   State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
            "   Partitions=batch \n\n";
  }
  return text;
}

// mpi.cluster's job on the first two compute nodes (checks/mpi_cluster.cc, JobArgv).
const std::vector<std::string> kMpiJobPrefix = {"srun", "-N", "2", "-w", "node01,node02", "--ntasks-per-node=1", "--mpi=pmix"};

// What a healthy node of kSlurmCluster answers; the controller also answers
// for slurmctld and runs the jobs.
void AnswerHealthy(testing::FakeNode& node, bool controller) {
  node.commands.Answer({"chronyc", "-n", "tracking"}, kTracking);
  node.commands.Answer({"munge", "-n"}, "MUNGE:AwQFAAB" + node.name + "=:\n");
  node.commands.Answer({"unmunge"}, "STATUS:          Success (0)\nENCODE_HOST:     head (10.9.0.1)\n");
  node.commands.Answer({"sha256sum", "/etc/slurm/slurm.conf"}, std::string(64, 'a') + "  /etc/slurm/slurm.conf\n");
  node.commands.Answer({"systemctl", "is-active", "slurmd"}, "active\n");
  node.commands.Answer({"df"}, testing::CapturedFixture("df-output-B1--debian12-5-paths--1.txt"));
  if (!controller) return;
  node.commands.Answer({"scontrol", "ping"}, "Slurmctld(primary) at head is UP\n");
  node.commands.Answer(ScontrolShowNodeJsonArgv(), "scontrol: error: --json is not supported\n", 1);
  node.commands.Answer(ScontrolShowNodeTextArgv(), ScontrolShowNode({"node01", "node02"}));
  node.commands.Answer({"srun"}, "0: node01\n1: node02\n");
  node.commands.Answer(kMpiJobPrefix, "ring: ok ranks=2 nodes=node01,node02\n"
                                      "pingpong: latency_us=2.1 bandwidth_mbps=11000 between=node01,node02\n");
}

class PipelineHarness {
 public:
  explicit PipelineHarness(const std::string& inventory = kSlurmCluster) {
    std::ofstream(dir_.path() + "/inventory.yaml") << inventory;
    Diagnostics diagnostics;
    inventory_ = LoadInventory(dir_.path() + "/inventory.yaml", diagnostics);
    REQUIRE_MESSAGE(inventory_, diagnostics.ToString());
    for (const Host& host : inventory_->hosts) AnswerHealthy(fleet_.Add(host.name), host.name == "head");
  }

  testing::FakeNode& node(const std::string& name) { return fleet_.node(name); }
  testing::FakeFleet& fleet() { return fleet_; }

  // The request prepared against the inventory; REQUIRES it has no problems.
  PreparedRun Prepare(const RunRequest& request) {
    auto prepared = PrepareRun(request, *inventory_, nullptr);
    auto* problems = std::get_if<std::vector<RunProblem>>(&prepared);
    REQUIRE_MESSAGE(problems == nullptr, (problems ? problems->front().message : ""));
    return std::get<PreparedRun>(std::move(prepared));
  }
  std::variant<PreparedRun, std::vector<RunProblem>> TryPrepare(const RunRequest& request) {
    return PrepareRun(request, *inventory_, nullptr);
  }

  // The run's record and lock, its hosts reached through the fake fleet.
  std::unique_ptr<RunSession> Open(RunKind kind) {
    RunSessionOptions options;
    options.kind = kind;
    options.command = "clusterctl (test)";
    options.paths = StatePaths::For(dir_.path(), dir_.path() + "/state");
    options.clock = &clock_;
    options.filesystem = &filesystem_;
    options.sessions = &fleet_;
    auto session = RunSession::Open(*inventory_, options);
    REQUIRE_MESSAGE(session.ok(), session.status().message());
    return std::move(session).value();
  }

 private:
  testing::TempDir dir_;
  SystemClock clock_;
  SystemFilesystemProbe filesystem_;
  std::optional<Inventory> inventory_;
  testing::FakeFleet fleet_;
};

RunRequest ValidateRequest(const std::string& limit, std::vector<std::string> checks) {
  RunRequest request;
  request.kind = RunKind::kValidate;
  request.limit = limit;
  request.checks = std::move(checks);
  // Fake nodes answer at once; a short deadline turns off the waits meant
  // for real nodes (see validate/validation_run_test.cc).
  request.deadline = std::chrono::seconds(25);
  return request;
}

RunRequest CommandRequest(std::vector<std::string> argv) {
  RunRequest request;
  request.kind = RunKind::kCommand;
  request.command.argv = std::move(argv);
  return request;
}

const CheckResult* Find(const ValidationOutcome& outcome, const std::string& check, const std::string& subject) {
  for (const CheckResult& r : outcome.results) {
    if (r.check == check && r.subject == subject) return &r;
  }
  return nullptr;
}

bool NodeScope(const std::string& check) {
  for (const CheckInfo& info : CheckCatalogue()) {
    if (info.name == check) return info.scope == CheckScope::kNode;
  }
  return false;
}

}  // namespace

TEST_CASE("run pipeline: validate passes a healthy three-node Slurm cluster on every check it can run") {
  PipelineHarness h;
  PreparedRun run = h.Prepare(ValidateRequest("", {}));
  std::unique_ptr<RunSession> session = h.Open(RunKind::kValidate);
  ValidationOutcome outcome = Validate(run, session->sessions(), session->clock());
  CompletedRun completed = CompleteValidation(*session, outcome);
  for (const CheckResult& r : outcome.results) {
    CHECK_MESSAGE(r.outcome != CheckOutcome::kFail, r.check << " on " << r.subject << ": " << r.detail);
  }
  for (const char* host : {"head", "node01", "node02"}) {
    for (const char* check : {"reachable", "clock.offset", "munge.decode", "slurm.conf"}) {
      const CheckResult* r = Find(outcome, check, host);
      REQUIRE_MESSAGE(r != nullptr, check << " on " << host);
      CHECK_MESSAGE(r->outcome == CheckOutcome::kPass, check << " on " << host << ": " << r->detail);
    }
  }
  for (const char* host : {"node01", "node02"}) {
    const CheckResult* r = Find(outcome, "slurm.node", host);
    REQUIRE(r != nullptr);
    CHECK_MESSAGE(r->outcome == CheckOutcome::kPass, r->detail);
  }
  for (const char* check : {"slurm.controller", "slurm.srun"}) {
    bool passed = false;
    for (const CheckResult& r : outcome.results) passed = passed || (r.check == check && r.outcome == CheckOutcome::kPass);
    CHECK_MESSAGE(passed, check);
  }
  CHECK(completed.status == RunStatus::kOk);
  CHECK(completed.summary["fail"] == 0);
  CHECK(completed.summary["pass"].get<int>() > 0);
  CHECK(completed.state_errors.empty());
}

TEST_CASE("run pipeline: validate fails reachable and every node check of a node that does not answer") {
  PipelineHarness h;
  h.node("node02").unreachable = true;
  PreparedRun run = h.Prepare(ValidateRequest("", {}));
  std::unique_ptr<RunSession> session = h.Open(RunKind::kValidate);
  ValidationOutcome outcome = Validate(run, session->sessions(), session->clock());
  CompletedRun completed = CompleteValidation(*session, outcome);
  const CheckResult* reachable = Find(outcome, "reachable", "node02");
  REQUIRE(reachable != nullptr);
  CHECK(reachable->outcome == CheckOutcome::kFail);
  int node_checks = 0;
  for (const CheckResult& r : outcome.results) {
    if (r.subject != "node02" || !NodeScope(r.check)) continue;
    if (FindCheckSpec(r.check)->out_of_band) {  // read without SSH; the inventory, not the facts, says node02 has no BMC
      CHECK_MESSAGE(r.detail == "no bmc in the inventory for node02", r.check << ": " << r.detail);
      continue;
    }
    ++node_checks;
    CHECK_MESSAGE(r.outcome == CheckOutcome::kFail, r.check << ": " << r.detail);
  }
  CHECK(node_checks > 1);
  // The others are still judged on their own.
  const CheckResult* other = Find(outcome, "clock.offset", "node01");
  REQUIRE(other != nullptr);
  CHECK(other->outcome == CheckOutcome::kPass);
  CHECK(completed.status == RunStatus::kFailed);
  CHECK(completed.summary["fail"].get<int>() > 0);
}

TEST_CASE("run pipeline: every --limit with every --checks selection: a result for each selected node check and host") {
  PipelineHarness h;
  std::vector<std::vector<std::string>> selections = {{}, {"!nccl"}, {"gpu", "ib"}, {"slurm", "!slurm.srun"},
                                                      {"!clock.offset"}, {"munge", "clock"}};
  for (const std::string& prefix : CheckPrefixes()) selections.push_back({prefix});
  for (const std::string& check : AllCheckNames()) {
    selections.push_back({check});
    selections.push_back({"!" + check});
  }
  const std::vector<std::string> limits = {"",        "head",          "node01",        "node02", "compute",
                                           "!compute", "head,node02", "node[01-02]", "!node01"};
  SUBCASE("a healthy cluster") {}
  SUBCASE("the compute node node02 does not answer") { h.node("node02").unreachable = true; }
  SUBCASE("the controller does not answer") { h.node("head").unreachable = true; }
  for (const std::string& limit : limits) {
    for (const auto& checks : selections) {
      CAPTURE(limit);
      CAPTURE(Join(checks, ","));
      RunRequest request = ValidateRequest(limit, checks);
      request.level = CheckLevel::kAcceptance;  // every check, the measurements too
      PreparedRun run = h.Prepare(request);
      ValidationOutcome outcome;
      REQUIRE_NOTHROW(outcome = Validate(run, h.fleet(), kSystemClock));
      const std::vector<std::string>& known = AllCheckNames();
      std::set<std::pair<std::string, std::string>> seen;
      for (const CheckResult& r : outcome.results) {
        CHECK_MESSAGE(std::find(known.begin(), known.end(), r.check) != known.end(), r.check);
        seen.insert({r.check, r.subject});
      }
      for (const Host* host : run.hosts) {
        for (const std::string& check : known) {
          if (!NodeScope(check) || !run.checks.Has(check)) continue;
          CHECK_MESSAGE(seen.count({check, host->name}) == 1, check << " on " << host->name << ": no result");
        }
      }
    }
  }
}

TEST_CASE("run pipeline: facts are stored for the hosts that answered; an unreachable host is named") {
  PipelineHarness h;
  h.node("node02").unreachable = true;
  h.node("node01").facts["kernel"]["release"] = "6.1.0-18-amd64";
  RunRequest request;
  request.kind = RunKind::kFacts;
  PreparedRun run = h.Prepare(request);
  std::unique_ptr<RunSession> session = h.Open(RunKind::kFacts);
  std::vector<HostResult> results = GatherFacts(run, session->sessions(), session->clock());
  CompletedRun completed = CompleteFacts(*session, results);
  REQUIRE(results.size() == 3);
  CHECK(results[0].state == HostResult::State::kOk);
  CHECK(results[1].data["kernel"]["release"] == "6.1.0-18-amd64");
  CHECK(results[2].host->name == "node02");
  CHECK(results[2].state == HostResult::State::kUnreachable);
  CHECK(completed.status == RunStatus::kFailed);
  CHECK(completed.summary == nlohmann::json{{"hosts", 3}, {"ok", 2}, {"not_ok", 1}});
  auto stored = session->state().LoadFacts();
  REQUIRE(stored.ok());
  CHECK(stored->count("head") == 1);
  CHECK(stored->at("node01").facts["kernel"]["release"] == "6.1.0-18-amd64");
  CHECK(stored->count("node02") == 0);
}

TEST_CASE("run pipeline: --limit selects the hosts facts are gathered from") {
  PipelineHarness h;
  RunRequest request;
  request.kind = RunKind::kFacts;
  request.limit = "compute,!node02";
  PreparedRun run = h.Prepare(request);
  std::vector<HostResult> results = GatherFacts(run, h.fleet(), kSystemClock);
  REQUIRE(results.size() == 1);
  CHECK(results[0].host->name == "node01");
  CHECK(h.node("head").opens == 0);
}

// A run's clock an hour behind the machine's: every deadline taken from it
// has passed before the request is sent.
class HourBehindClock final : public Clock {
 public:
  int64_t NowMs() const override { return SystemClock().NowMs() - 3'600'000; }
  std::chrono::steady_clock::time_point Monotonic() const override {
    return SystemClock().Monotonic() - std::chrono::hours(1);
  }
};

TEST_CASE("run pipeline: facts and run take each request's deadline from the run's clock") {
  PipelineHarness h;
  h.node("node01").answer_delay = [](const agent_protocol::IncomingRequest&) { return std::chrono::milliseconds(50); };
  h.node("node01").commands.Answer({"true"}, "");
  const HourBehindClock late;
  RunRequest facts;
  facts.kind = RunKind::kFacts;
  facts.limit = "node01";
  std::vector<HostResult> gathered = GatherFacts(h.Prepare(facts), h.fleet(), late);
  REQUIRE(gathered.size() == 1);
  CHECK(gathered[0].state != HostResult::State::kOk);
  CHECK(gathered[0].error.find("deadline") != std::string::npos);
  CHECK(GatherFacts(h.Prepare(facts), h.fleet(), kSystemClock)[0].state == HostResult::State::kOk);

  PreparedRun command = h.Prepare(CommandRequest({"true"}));
  std::vector<HostResult> ran = RunCommand(command, h.fleet(), late);
  REQUIRE(ran.size() == 3);
  CHECK(ran[1].host->name == "node01");
  CHECK(ran[1].error.find("deadline") != std::string::npos);
}

TEST_CASE("run pipeline: run executes the argv on each host and reports each exit code") {
  PipelineHarness h;
  for (const char* host : {"head", "node01", "node02"}) h.node(host).commands.Answer({"uname", "-r"}, "6.1.0\n");
  h.node("node01").commands.Answer({"uname", "-r"}, "uname: write error\n", 3);
  PreparedRun run = h.Prepare(CommandRequest({"uname", "-r"}));
  std::unique_ptr<RunSession> session = h.Open(RunKind::kCommand);
  std::vector<HostResult> results = RunCommand(run, session->sessions(), session->clock());
  std::vector<OutputGroup> groups = GroupOutputs(results);
  CompletedRun completed = CompleteCommand(*session, results, groups);
  REQUIRE(results.size() == 3);
  CHECK(results[0].data == nlohmann::json{{"exit_code", 0}, {"output", "6.1.0\n"}});
  CHECK(results[1].data == nlohmann::json{{"exit_code", 3}, {"output", "uname: write error\n"}});
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].hosts == std::vector<std::string>{"head", "node02"});
  CHECK(groups[1].exit_code == 3);
  // Every host was reached: the run is ok; a command's exit code is the admin's to judge.
  CHECK(completed.status == RunStatus::kOk);
  CHECK(completed.summary == nlohmann::json{{"hosts", 3}, {"groups", 2}});
}

TEST_CASE("run pipeline: run reports a program that is not installed (127) and a host not reached") {
  PipelineHarness h;
  h.node("head").commands.Missing({"nvidia-smi"});
  h.node("node02").unreachable = true;
  PreparedRun run = h.Prepare(CommandRequest({"nvidia-smi", "-L"}));
  std::unique_ptr<RunSession> session = h.Open(RunKind::kCommand);
  std::vector<HostResult> results = RunCommand(run, session->sessions(), session->clock());
  CompletedRun completed = CompleteCommand(*session, results, GroupOutputs(results));
  REQUIRE(results.size() == 3);
  CHECK(results[0].data["exit_code"] == 127);
  CHECK(results[1].data["exit_code"] == 0);  // not canned: exit 0, no output
  CHECK(results[2].state == HostResult::State::kUnreachable);
  CHECK(completed.status == RunStatus::kFailed);
}

TEST_CASE("run request: every problem, by the field it is in, before anything is locked") {
  PipelineHarness h;
  RunRequest request = ValidateRequest("node09", {"gpu.eccs"});
  auto prepared = h.TryPrepare(request);
  auto* problems = std::get_if<std::vector<RunProblem>>(&prepared);
  REQUIRE(problems != nullptr);
  std::set<RunProblem::Field> fields;
  for (const RunProblem& p : *problems) fields.insert(p.field);
  CHECK(fields == std::set<RunProblem::Field>{RunProblem::Field::kLimit, RunProblem::Field::kChecks});

  RunRequest deploy;
  deploy.kind = RunKind::kPlan;
  deploy.batch = "0";
  deploy.max_fail_percent = 101;
  std::vector<RunProblem> found = CheckRunRequest(deploy, nullptr);
  REQUIRE(found.size() == 2);
  CHECK(found[0].field == RunProblem::Field::kBatch);
  CHECK(found[0].message == "'0' is not N or P% (1-100)");
  CHECK(found[1].field == RunProblem::Field::kMaxFail);

  const std::vector<RunProblem> no_command = CheckRunRequest(CommandRequest({}), nullptr);
  REQUIRE(no_command.size() == 1);
  CHECK(no_command.front().field == RunProblem::Field::kCommand);
}

TEST_CASE("run request: a batch in percent is sized by the hosts --limit selected") {
  PipelineHarness h;
  RunRequest request;
  request.kind = RunKind::kDrift;
  request.batch = "50%";
  request.limit = "compute";
  // A deploy kind needs its catalog for roles and tags; none named, none needed here.
  auto prepared = h.TryPrepare(request);
  REQUIRE(std::holds_alternative<PreparedRun>(prepared));
  const PreparedRun& run = std::get<PreparedRun>(prepared);
  CHECK(run.batch_size == 1);
  DeploymentOptions options = run.Deployment();
  CHECK(options.check);
  CHECK(options.verify);
}

// issue 36: the directory's users resolve alike and one of them runs a job.
TEST_CASE("run pipeline: users.consistent and users.job, a directory user's job as that user") {
  PipelineHarness h(std::string(kSlurmCluster) + "vars:\n  directory_users: [{name: carol, uid: 5001, gid: 5000}]\n");
  for (const char* host : {"head", "node01", "node02"}) {
    h.node(host).commands.Answer({"getent", "passwd", "--", "carol"}, "carol:*:5001:5000::/home/carol:/bin/bash\n");
  }
  SUBCASE("the job runs as the directory's UID") {
    h.node("head").commands.Answer({"runuser", "-u", "carol", "--", "srun"}, "5001\n");
    PreparedRun run = h.Prepare(ValidateRequest("", {"users"}));
    std::unique_ptr<RunSession> session = h.Open(RunKind::kValidate);
    ValidationOutcome outcome = Validate(run, session->sessions(), session->clock());
    const CheckResult* job = Find(outcome, "users.job", "t");
    REQUIRE(job != nullptr);
    CHECK_MESSAGE(job->outcome == CheckOutcome::kPass, job->detail);
    CHECK(job->detail == "srun as carol on node01: id -u in the job is the directory's UID");
    for (const char* host : {"head", "node01", "node02"}) {
      const CheckResult* consistent = Find(outcome, "users.consistent", host);
      REQUIRE(consistent != nullptr);
      CHECK_MESSAGE(consistent->outcome == CheckOutcome::kPass, consistent->detail);
    }
  }
  SUBCASE("a job refused, or run as another UID, fails naming the user and node") {
    SUBCASE("refused") {
      h.node("head").commands.Answer({"runuser", "-u", "carol", "--", "srun"},
                                     "srun: error: Unable to allocate resources: Invalid user id\n", 1);
    }
    SUBCASE("another UID") { h.node("head").commands.Answer({"runuser", "-u", "carol", "--", "srun"}, "1234\n"); }
    PreparedRun run = h.Prepare(ValidateRequest("", {"users.job"}));
    std::unique_ptr<RunSession> session = h.Open(RunKind::kValidate);
    ValidationOutcome outcome = Validate(run, session->sessions(), session->clock());
    const CheckResult* job = Find(outcome, "users.job", "t");
    REQUIRE(job != nullptr);
    CHECK(job->outcome == CheckOutcome::kFail);
    CHECK(job->detail.rfind("srun as carol on node01", 0) == 0);
  }
}

// issue 37: the MPI test program across two nodes, from the submit host.
TEST_CASE("run pipeline: mpi.cluster runs the mpi role's program with srun --mpi=pmix on two nodes") {
  PipelineHarness h;
  auto mpi_cluster = [&h]() {
    PreparedRun run = h.Prepare(ValidateRequest("", {"mpi.cluster"}));
    std::unique_ptr<RunSession> session = h.Open(RunKind::kValidate);
    ValidationOutcome outcome = Validate(run, session->sessions(), session->clock());
    const CheckResult* r = Find(outcome, "mpi.cluster", "t");
    REQUIRE(r != nullptr);
    return *r;
  };
  SUBCASE("a right run passes with its latency and bandwidth") {
    CheckResult r = mpi_cluster();
    CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
    CHECK(r.measured == "2.1 us, 11000 MB/s");
    CHECK(r.threshold == "<= 100 us");  // no InfiniBand on these nodes: TCP's ceiling, bandwidth not judged
  }
  SUBCASE("a rank that got the wrong value fails") {
    h.node("head").commands.Answer(kMpiJobPrefix, "ring: FAILED rank=1 received=3 expected=0\n", 1);
    CHECK(mpi_cluster().outcome == CheckOutcome::kFail);
  }
  SUBCASE("without the program on the submit host, a skip naming it") {
    h.node("head").commands.Answer({"test", "-x", "/usr/local/lib/clusterctl/mpi-ring"}, "", 1);
    CheckResult r = mpi_cluster();
    CHECK(r.outcome == CheckOutcome::kSkip);
    CHECK(r.detail.find("not built on the submit host head") != std::string::npos);
  }
}

TEST_CASE("run pipeline: users.job is skipped without directory users") {
  PipelineHarness h;
  PreparedRun run = h.Prepare(ValidateRequest("", {"users.job"}));
  std::unique_ptr<RunSession> session = h.Open(RunKind::kValidate);
  ValidationOutcome outcome = Validate(run, session->sessions(), session->clock());
  const CheckResult* job = Find(outcome, "users.job", "t");
  REQUIRE(job != nullptr);
  CHECK(job->outcome == CheckOutcome::kSkip);
  CHECK(job->detail == "no directory_users in the inventory");
}

}  // namespace clusterctl
