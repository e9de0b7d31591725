#include "controller/daemon/daemon.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/json_text.h"
#include "controller/daemon/request_body.h"
#include "controller/daemon/test_daemon.h"
#include "controller/engine/fake_fleet.h"

namespace clusterctl {
namespace {

using namespace std::chrono_literals;
using testing::BodyOf;
using testing::RawClient;
using testing::Request;
using testing::kEchoRole;
using testing::StatusOf;
using testing::TestDaemon;

// Bytes a node may send that are not UTF-8, and what JSON output shows for
// each (U+FFFD).
const std::string kNotUtf8 = "caf\xe9 \xff\xfe";
const std::string kReplaced = "\xef\xbf\xbd";

// node01 puts bytes that are not UTF-8 in its facts, its connection notes,
// every command's output and every step's failure; node02's connection
// fails with them (an SSH banner); node03 is well.
void MakeNodesSpeakNonUtf8(testing::FakeFleet& fleet) {
  for (const char* name : {"node01", "node02", "node03"}) fleet.Add(name);
  testing::FakeNode& node01 = fleet.node("node01");
  // In the facts nothing bounds (os.id and the facts the roles read have a
  // syntax: non-UTF-8 there fails the node, facts_check.h).
  node01.facts["os"]["pretty_name"] = "Deb" + kNotUtf8;
  node01.facts["kernel"]["release"] = kNotUtf8;
  node01.facts["hostname"] = kNotUtf8;
  node01.open_notes = {"new host key " + kNotUtf8 + " recorded"};
  node01.intercept = [](const agent_protocol::IncomingRequest& in) -> testing::Interception {
    if (std::holds_alternative<agent_protocol::ExecRequest>(in.request)) {
      agent_protocol::ExecReply reply;
      reply.exit_code = 1;
      reply.stdout_data = kNotUtf8 + "\n";
      reply.stderr_data = "error: " + kNotUtf8 + "\n";
      return agent_protocol::EncodeExecReply(in.id, reply);
    }
    auto* resource = std::get_if<agent_protocol::ResourceRequest>(&in.request);
    if (!resource) return {};
    agent_protocol::ResourceResult failed;
    failed.Fail("echo: " + kNotUtf8);
    return agent_protocol::EncodeResourceReply(in.id, failed);
  };
  fleet.node("node02").refusal = "SSH-2.0-" + kNotUtf8 + ": banner exchange failed";
}

// Sessions whose fan-out throws: first a std::exception whose message is not
// UTF-8, then something that is no std::exception at all. Nothing in the
// engine catches the second; the job's barrier must.
class ThrowingSessions final : public SessionFactory {
 public:
  Task<OpenedSession> Open(const Host&, const CancelToken*) override { throw std::runtime_error("not reached"); }
  void ForEach(size_t, const std::function<Task<void>(size_t)>&) override {
    if (calls_++ == 0) throw std::runtime_error("fan-out broke: " + kNotUtf8);
    throw 42;
  }

 private:
  std::atomic<int> calls_{0};
};

TEST_CASE("daemon API: the token guards every route but the liveness probe and the page") {
  TestDaemon t;
  REQUIRE(t.token.size() == 43);
  struct stat st {};
  REQUIRE(::stat((t.paths.secrets() + "/" + kDaemonTokenSecret).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  CHECK(StatusOf(t.Exchange(Request("GET", "/healthz", "Connection: close\r\n"))) == 200);
  CHECK(StatusOf(t.Exchange(Request("GET", "/", "Connection: close\r\n"))) == 200);
  const std::string missing = t.Get("/api/v1/status", "");
  const std::string wrong = t.Get("/api/v1/status", "Bearer " + std::string(43, 'x'));
  const std::string unknown_path = t.Get("/api/v1/secret-admin", "");
  CHECK(StatusOf(missing) == 401);
  CHECK(StatusOf(wrong) == 401);
  CHECK(StatusOf(unknown_path) == 401);  // no hint which paths exist
  CHECK(BodyOf(missing) == BodyOf(wrong));
  CHECK(StatusOf(t.Get("/metrics", "")) == 401);

  const std::string status = t.Get("/api/v1/status", "Bearer " + t.token);
  REQUIRE(StatusOf(status) == 200);
  auto document = nlohmann::json::parse(BodyOf(status));
  CHECK(document["api_version"] == 1);
  CHECK(document["hosts"].size() == 3);
  CHECK(document["groups"][0]["hosts"] == "node[01-03]");
  CHECK(document["summary"]["never deployed"] == 3);
  CHECK(t.log.str().find(t.token) == std::string::npos);
}

TEST_CASE("daemon API: paths outside the routes, traversal included, are 404") {
  TestDaemon t;
  const std::string auth = "Bearer " + t.token;
  CHECK(StatusOf(t.Get("/api/v1/hosts/node01", auth)) == 200);
  CHECK(StatusOf(t.Get("/api/v1/hosts/../../etc/passwd", auth)) == 404);
  CHECK(StatusOf(t.Get("/api/v1/hosts/node01%2F..%2F..%2Fetc%2Fshadow", auth)) == 404);
  CHECK(StatusOf(t.Get("/../../etc/passwd", auth)) == 404);
  CHECK(StatusOf(t.Get("/api/v1/runs/1%00", auth)) == 404);
  CHECK(StatusOf(t.Get("/api/v1/runs/99999999999999999999999", auth)) == 404);
  CHECK(StatusOf(t.Get("/api/v1/events?job=abc", auth)) == 400);
  CHECK(StatusOf(t.Get("/api/v1/events", auth)) == 404);  // no job has run
  const std::string wrong_method = t.Exchange(Request("DELETE", "/api/v1/deploy", "Authorization: " + auth + "\r\nConnection: close\r\n"));
  CHECK(StatusOf(wrong_method) == 405);
}

TEST_CASE("daemon API: bad bodies are refused with the field named, and nothing starts") {
  TestDaemon t;
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{\"limit\":")) == 400);
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{}", "text/plain")) == 415);
  const std::string unknown = t.Post("/api/v1/deploy", "{\"limt\":\"node01\"}");
  CHECK(StatusOf(unknown) == 400);
  CHECK(BodyOf(unknown).find("unknown field 'limt'") != std::string::npos);
  const std::string typed = t.Post("/api/v1/deploy", "{\"verify\":\"yes\"}");
  CHECK(BodyOf(typed).find("field 'verify'") != std::string::npos);
  CHECK(StatusOf(t.Post("/api/v1/deploy", std::string(100, '[') + std::string(100, ']'))) == 400);
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{\"limit\":\"node99\"}")) == 400);
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{\"max_fail_percent\":101}")) == 400);
  CHECK(StatusOf(t.Post("/api/v1/validate", "{\"checks\":[\"no.such.check\"]}")) == 400);
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{\"roles\":[\"nope\"]}")) == 400);
  CHECK(StatusOf(t.Post("/api/v1/stop", "{}")) == 409);  // nothing runs
  const std::string jobs = t.Get("/api/v1/jobs", "Bearer " + t.token);
  CHECK(nlohmann::json::parse(BodyOf(jobs))["recent"].empty());
}

TEST_CASE("daemon API: deploy and plan take tags and skip_tags as deploy --tags/--skip-tags does") {
  testing::FakeFleet fleet;
  for (const char* name : {"node01", "node02", "node03"}) fleet.Add(name);
  TestDaemon t(&fleet, kEchoRole);
  const std::string tag = t.Post("/api/v1/plan", "{\"tags\":[\"siet\"]}");
  CHECK(StatusOf(tag) == 400);
  CHECK(BodyOf(tag).find("unknown tag 'siet' (did you mean 'site'?)") != std::string::npos);
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{\"skip_tags\":\"site,nope\"}")) == 400);
  CHECK(StatusOf(t.Post("/api/v1/plan", "{\"roles\":[\"echo\"],\"tags\":\"site\",\"skip_tags\":[]}")) == 202);
  const nlohmann::json planned = t.WaitForJob(1);
  REQUIRE(planned.is_object());
  CHECK(planned["status"] == "ok");
  const size_t requests_before = fleet.node("node01").applied.size();
  CHECK(requests_before > 0);  // the plan checked echo's step on the node
  // Skipping the echo role's only tag leaves nothing to run: the deploy changes nothing.
  CHECK(StatusOf(t.Post("/api/v1/deploy", "{\"roles\":[\"echo\"],\"skip_tags\":[\"site\"]}")) == 202);
  const nlohmann::json skipped = t.WaitForJob(2);
  REQUIRE(skipped.is_object());
  CHECK(skipped["summary"]["changed"] == 0);
  CHECK(fleet.node("node01").applied.size() == requests_before);  // no step reached the node
}

TEST_CASE("daemon API: a deploy while another process holds the state is 409 naming the holder") {
  TestDaemon t;
  FakeClock clock;
  StateStore::WriterOptions writer{&clock, &t.filesystem, "clusterctl deploy cluster.yaml (from a shell)"};
  auto holder = StateStore::OpenForWriting(t.paths, writer);
  REQUIRE(holder.ok());
  const std::string refused = t.Post("/api/v1/deploy", "{}");
  CHECK(StatusOf(refused) == 409);
  CHECK(BodyOf(refused).find("pid " + std::to_string(::getpid())) != std::string::npos);
  CHECK(BodyOf(refused).find("from a shell") != std::string::npos);
}

TEST_CASE("daemon API: metrics are in the exposition format") {
  TestDaemon t;
  t.Get("/api/v1/status", "");  // counted as 401
  const std::string response = t.Get("/metrics", "Bearer " + t.token);
  REQUIRE(StatusOf(response) == 200);
  CHECK(response.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  const std::string text = BodyOf(response);
  CHECK(text.find("clusterctl_host_health{host=\"node02\",health=\"never deployed\"} 1\n") != std::string::npos);
  CHECK(text.find("clusterctl_http_requests_total{route=\"unauthorized\",code=\"401\"} 1\n") != std::string::npos);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
    CAPTURE(line);
    CHECK(line.rfind("clusterctl_", 0) == 0);
    CHECK(line.find(' ') != std::string::npos);
  }
}

TEST_CASE("daemon: node text that is not UTF-8 goes through jobs, the log, status and events; the daemon serves on") {
  testing::FakeFleet fleet;
  MakeNodesSpeakNonUtf8(fleet);
  TestDaemon t(&fleet, kEchoRole);
  const std::string auth = "Bearer " + t.token;

  // A validation: node02's banner is in the summary's failures.
  REQUIRE(StatusOf(t.Post("/api/v1/validate", R"({"checks":["reachable","clock.offset"]})")) == 202);
  const nlohmann::json validated = t.WaitForJob(1);
  REQUIRE(validated.is_object());
  CHECK(validated["status"] == "failed");
  CHECK(JsonText(validated["summary"]).find("SSH-2.0-caf" + kReplaced) != std::string::npos);
  t.daemon->Tick();  // logs the finished job (the strict dump() threw here: issue 31)
  CHECK(t.log.str().find("job 1: validate failed") != std::string::npos);
  // One bounded line: the bytes that are not UTF-8 shown as \xNN.
  CHECK(t.log.str().find("SSH-2.0-caf\\xe9 \\xff\\xfe") != std::string::npos);

  // A deploy: node01's step fails with its text, node02 is unreachable with its banner.
  REQUIRE(StatusOf(t.Post("/api/v1/deploy", R"({"roles":["echo"]})")) == 202);
  const nlohmann::json deployed = t.WaitForJob(2);
  REQUIRE(deployed.is_object());
  CHECK(deployed["status"] == "failed");
  t.daemon->Tick();
  CHECK(t.log.str().find("job 2: deploy failed") != std::string::npos);
  CHECK(fleet.node("node03").applied.size() == 1);

  const std::string events = t.Get("/api/v1/events?job=2", auth);
  CHECK(StatusOf(events) == 200);
  CHECK(events.find("echo: caf" + kReplaced) != std::string::npos);
  CHECK(events.find("new host key caf" + kReplaced) != std::string::npos);
  CHECK(events.find("job_finished") != std::string::npos);
  for (const char* path : {"/api/v1/status", "/api/v1/hosts/node01", "/api/v1/hosts/node02", "/api/v1/jobs"}) {
    CAPTURE(path);
    const std::string response = t.Get(path, auth);
    REQUIRE(StatusOf(response) == 200);
    CHECK_FALSE(nlohmann::json::parse(BodyOf(response), nullptr, false).is_discarded());
  }
  CHECK(StatusOf(t.Get("/metrics", auth)) == 200);
  CHECK(t.Get("/api/v1/hosts/node02", auth).find("SSH-2.0-caf" + kReplaced) != std::string::npos);
}

TEST_CASE("daemon: a job that throws fails with the message, releases the state, and the daemon serves on") {
  ThrowingSessions sessions;
  TestDaemon t(&sessions, kEchoRole);
  REQUIRE(StatusOf(t.Post("/api/v1/deploy", "{}")) == 202);
  const nlohmann::json first = t.WaitForJob(1);
  REQUIRE(first.is_object());
  CHECK(first["status"] == "failed");
  CHECK(first["summary"]["error"] == "internal error: fan-out broke: caf" + kReplaced + " " + kReplaced + kReplaced);
  t.daemon->Tick();
  CHECK(t.log.str().find("job 1: deploy failed") != std::string::npos);

  REQUIRE(StatusOf(t.Post("/api/v1/deploy", "{}")) == 202);  // the first released the state's lock
  const nlohmann::json second = t.WaitForJob(2);
  REQUIRE(second.is_object());
  CHECK(second["summary"]["error"] == "internal error: an exception of unknown type");
  t.daemon->Tick();
  CHECK(t.log.str().find("job 2: deploy failed") != std::string::npos);
  CHECK(StatusOf(t.Exchange(Request("GET", "/healthz", "Connection: close\r\n"))) == 200);
}

TEST_CASE("daemon status: cluster-scope failures are listed beside the nodes' (issue 30, item 8)") {
  TestDaemon t;
  {
    FakeClock clock;
    auto store = StateStore::OpenForWriting(t.paths, {&clock, &t.filesystem, "test"});
    REQUIRE(store.ok());
    const int64_t run = *(*store)->BeginRun("validate", "validate");
    StoredValidation controller;
    controller.check = "slurm.controller";
    controller.scope = CheckScope::kCluster;
    controller.subject = "node01";
    controller.result = CheckOutcome::kFail;
    controller.detail = "slurmctld does not answer";
    StoredValidation clock_check = controller;
    clock_check.check = "clock.offset";
    clock_check.scope = CheckScope::kNode;
    clock_check.subject = "node02";
    clock_check.detail = "offset 2.1 s";
    REQUIRE((*store)->SaveValidations(run, {controller, clock_check}).ok());
  }
  const std::string response = t.Get("/api/v1/status", "Bearer " + t.token);
  REQUIRE(StatusOf(response) == 200);
  const nlohmann::json status = nlohmann::json::parse(BodyOf(response));
  REQUIRE(status["failed_checks"].size() == 2);
  const nlohmann::json& node = status["failed_checks"][0];
  CHECK(node["host"] == "node02");
  CHECK(node["check"] == "clock.offset");
  const nlohmann::json& cluster = status["failed_checks"][1];
  CHECK(cluster["host"].is_null());
  CHECK(cluster["scope"] == "cluster");
  CHECK(cluster["check"] == "slurm.controller");
  CHECK(cluster["detail"] == "slurmctld does not answer");
  CHECK(status["cluster_validation"]["result"] == "fail");
  CHECK(status["cluster_validation"]["fail"] == 1);
}

TEST_CASE("daemon: Slurm's drained nodes in the status and the metrics, read without a run record") {
  testing::FakeFleet fleet;
  for (const char* name : {"node01", "node02", "node03"}) fleet.Add(name);
  const nlohmann::json nodes = {
      {{"name", "node02"}, {"state", {"IDLE", "DRAIN"}}, {"reason", "clusterctl: clock.offset chronyd is not running"}},
      {{"name", "node03"}, {"state", {"IDLE", "DRAIN"}}, {"reason", "<b>RMA</b> [root@2025-01-01]"}}};
  fleet.node("node01").commands.Answer({"scontrol", "show", "node", "--json"}, JsonText({{"nodes", nodes}}));
  TestDaemon t(&fleet, "", 3, "groups:\n  controller: {hosts: [node01]}\n  compute: {hosts: [node02, node03]}\n");
  const std::string auth = "Bearer " + t.token;
  nlohmann::json slurm;
  for (int i = 0; i < 100; ++i) {  // the watch reads at start, on its own thread
    slurm = nlohmann::json::parse(BodyOf(t.Get("/api/v1/status", auth)))["slurm"];
    if (!slurm["read_at"].is_null()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(slurm["configured"] == true);
  CHECK(slurm["controller"] == "node01");
  CHECK(slurm["error"] == "");
  CHECK(slurm["interval_s"] == 60);
  REQUIRE(slurm["unavailable"].size() == 2);
  CHECK(slurm["unavailable"][0]["name"] == "node02");
  CHECK(slurm["unavailable"][0]["drained_by_health"] == true);
  CHECK(slurm["unavailable"][1]["reason"] == "<b>RMA</b> [root@2025-01-01]");  // text; the page inserts it as text
  CHECK(slurm["unavailable"][1]["drained_by_health"] == false);
  const std::string metrics = BodyOf(t.Get("/metrics", auth));
  CHECK(metrics.find("clusterctl_slurm_nodes_unavailable{drained_by=\"health\"} 1\n") != std::string::npos);
  CHECK(metrics.find("clusterctl_slurm_nodes_unavailable{drained_by=\"other\"} 1\n") != std::string::npos);
  CHECK(metrics.find("clusterctl_slurm_read_ok 1\n") != std::string::npos);
  // A reading is not a run: the run history stays empty, no job ran.
  CHECK(nlohmann::json::parse(BodyOf(t.Get("/api/v1/runs", auth)))["runs"].empty());
  CHECK(nlohmann::json::parse(BodyOf(t.Get("/api/v1/jobs", auth)))["recent"].empty());
  CHECK(fleet.node("node02").opens == 0);
}

TEST_CASE("request bodies: types, lists and depth") {
  HttpRequest request;
  request.content_type = "application/json; charset=utf-8";
  request.body = R"({"limit":"a","roles":"x, y","verify":true,"max_fail_percent":5})";
  auto parsed = RequestBody::Parse(request, {"limit", "roles", "verify", "max_fail_percent"});
  REQUIRE(std::holds_alternative<RequestBody>(parsed));
  RequestBody& body = std::get<RequestBody>(parsed);
  std::string limit;
  std::vector<std::string> roles;
  bool verify = false;
  int max_fail = 100;
  body.String("limit", limit);
  body.StringList("roles", roles);
  body.Bool("verify", verify);
  body.Int("max_fail_percent", 0, 100, max_fail);
  CHECK_FALSE(body.error());
  CHECK(limit == "a");
  CHECK(roles == std::vector<std::string>{"x", "y"});
  CHECK(verify);
  CHECK(max_fail == 5);

  request.body = std::string(9, '[') + std::string(9, ']');
  CHECK(std::get<BodyError>(RequestBody::Parse(request, {})).message.find("deeper") != std::string::npos);
  request.body = "{\"" + std::string(500, 'k') + "\":1}";
  CHECK(std::get<BodyError>(RequestBody::Parse(request, {})).message.size() < 200);
}

TEST_CASE("bearer tokens compare whole") {
  CHECK(BearerMatches("Bearer abc", "abc"));
  CHECK_FALSE(BearerMatches("Bearer abd", "abc"));
  CHECK_FALSE(BearerMatches("Bearer abcd", "abc"));
  CHECK_FALSE(BearerMatches("bearer abc", "abc"));
  CHECK_FALSE(BearerMatches("Bearer ", ""));
  CHECK_FALSE(BearerMatches("", "abc"));
}

TEST_CASE("label values cannot break a metrics line") {
  CHECK(EscapeLabelValue("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}

}  // namespace
}  // namespace clusterctl
