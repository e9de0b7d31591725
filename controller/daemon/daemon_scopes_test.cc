// The daemon's scoped tokens (issue 47, item 4): what each scope may do,
// rotation of one scope alone, the metrics listener, and the single token of
// earlier versions becoming the admin token.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

#include "controller/daemon/access.h"
#include "controller/daemon/test_daemon.h"
#include "controller/engine/fake_fleet.h"

namespace clusterctl {
namespace {

using testing::BodyOf;
using testing::kEchoRole;
using testing::StatusOf;
using testing::TestDaemon;

nlohmann::json JsonOf(const std::string& response) { return nlohmann::json::parse(BodyOf(response)); }

TEST_CASE("daemon tokens: three scopes, three files of 0600, three different tokens") {
  TestDaemon t;
  CHECK(t.token.size() == 43);
  CHECK(t.read_token.size() == 43);
  CHECK(t.metrics_token.size() == 43);
  CHECK(t.token != t.read_token);
  CHECK(t.token != t.metrics_token);
  CHECK(t.read_token != t.metrics_token);
  for (TokenScope scope : {TokenScope::kMetrics, TokenScope::kRead, TokenScope::kAdmin}) {
    struct stat st {};
    REQUIRE(::stat((t.paths.secrets() + "/" + TokenSecretName(scope)).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(t.log.str().find(t.ReadToken(scope)) == std::string::npos);
  }
}

TEST_CASE("daemon tokens: the metrics token reads /metrics and nothing else; it cannot deploy or stop") {
  TestDaemon t;
  const std::string metrics = "Bearer " + t.metrics_token;
  CHECK(StatusOf(t.Get("/metrics", metrics)) == 200);
  const std::string status = t.Get("/api/v1/status", metrics);
  REQUIRE(StatusOf(status) == 403);
  CHECK(JsonOf(status)["scope_needed"] == "read");
  CHECK(JsonOf(status)["scope"] == "metrics");
  CHECK(JsonOf(status)["error"].get<std::string>().find("needs a token of scope read") != std::string::npos);
  CHECK(StatusOf(t.Get("/api/v1/jobs", metrics)) == 403);
  CHECK(StatusOf(t.Get("/api/v1/hosts/node01", metrics)) == 403);
  const std::string deploy = t.PostAs(t.metrics_token, "/api/v1/deploy", "{}");
  REQUIRE(StatusOf(deploy) == 403);
  CHECK(JsonOf(deploy)["scope_needed"] == "admin");
  CHECK(StatusOf(t.PostAs(t.metrics_token, "/api/v1/stop", "{}")) == 403);
  CHECK(StatusOf(t.PostAs(t.metrics_token, "/api/v1/plan", "{}")) == 403);
  // Nothing started; a wrong token is still 401, not 403.
  CHECK(JsonOf(t.Get("/api/v1/jobs", "Bearer " + t.token))["recent"].empty());
  CHECK(StatusOf(t.Get("/metrics", "Bearer " + std::string(43, 'x'))) == 401);
  CHECK(StatusOf(t.PostAs(std::string(43, 'x'), "/api/v1/deploy", "{}")) == 401);
}

TEST_CASE("daemon tokens: the read token reads the API and the metrics but cannot POST; the admin token can") {
  testing::FakeFleet fleet;
  for (const char* name : {"node01", "node02", "node03"}) fleet.Add(name);
  TestDaemon t(&fleet, kEchoRole);
  const std::string read = "Bearer " + t.read_token;
  CHECK(StatusOf(t.Get("/api/v1/status", read)) == 200);
  CHECK(StatusOf(t.Get("/api/v1/jobs", read)) == 200);
  CHECK(StatusOf(t.Get("/api/v1/plan", read)) == 200);
  CHECK(StatusOf(t.Get("/metrics", read)) == 200);
  for (const char* path : {"/api/v1/deploy", "/api/v1/plan", "/api/v1/validate", "/api/v1/drift-check", "/api/v1/stop"}) {
    CAPTURE(path);
    const std::string refused = t.PostAs(t.read_token, path, "{}");
    CHECK(StatusOf(refused) == 403);
    CHECK(JsonOf(refused)["scope_needed"] == "admin");
  }
  CHECK(JsonOf(t.Get("/api/v1/jobs", read))["recent"].empty());
  CHECK(StatusOf(t.Post("/api/v1/stop", "{}")) == 409);  // admin: allowed, nothing runs
  REQUIRE(StatusOf(t.Post("/api/v1/deploy", "{\"roles\":[\"echo\"]}")) == 202);
  const nlohmann::json deployed = t.WaitForJob(1);
  REQUIRE(deployed.is_object());
  CHECK(deployed["status"] == "ok");
}

TEST_CASE("daemon tokens: rotating one scope ends its old token within a poll and leaves the others valid") {
  TestDaemon t;
  const std::string old_metrics = t.metrics_token;
  auto rotated = RotateDaemonToken(t.paths.secrets(), TokenScope::kMetrics);
  REQUIRE(rotated.ok());
  CHECK(*rotated != old_metrics);
  CHECK(t.ReadToken(TokenScope::kMetrics) == *rotated);
  CHECK(t.ReadToken(TokenScope::kRead) == t.read_token);
  CHECK(t.ReadToken(TokenScope::kAdmin) == t.token);
  t.daemon->ReloadInventory();  // the serve loop's next poll
  t.daemon->Tick();
  CHECK(StatusOf(t.Get("/metrics", "Bearer " + old_metrics)) == 401);
  CHECK(StatusOf(t.Get("/metrics", "Bearer " + *rotated)) == 200);
  CHECK(StatusOf(t.Get("/api/v1/status", "Bearer " + t.read_token)) == 200);
  CHECK(StatusOf(t.Get("/api/v1/status", "Bearer " + t.token)) == 200);
  CHECK(StatusOf(t.Post("/api/v1/stop", "{}")) == 409);  // the admin token still passes
}

TEST_CASE("daemon tokens: the metrics listener serves /metrics to the metrics token only, and /healthz") {
  TestDaemon t(nullptr, "", 3, "", /*metrics_listener=*/true);
  REQUIRE(t.daemon->metrics_port() > 0);
  CHECK(t.daemon->metrics_port() != t.daemon->port());
  CHECK(StatusOf(t.GetMetricsListener("/healthz", "")) == 200);
  CHECK(StatusOf(t.GetMetricsListener("/metrics", "")) == 401);
  CHECK(StatusOf(t.GetMetricsListener("/metrics", "Bearer " + std::string(43, 'x'))) == 401);
  const std::string metrics = t.GetMetricsListener("/metrics", "Bearer " + t.metrics_token);
  REQUIRE(StatusOf(metrics) == 200);
  CHECK(BodyOf(metrics).find("clusterctl_host_health{host=\"node02\"") != std::string::npos);
  CHECK(StatusOf(t.GetMetricsListener("/api/v1/status", "Bearer " + t.metrics_token)) == 404);
  CHECK(StatusOf(t.GetMetricsListener("/", "Bearer " + t.metrics_token)) == 404);  // not even the page
  // A stronger token sent in clear is refused, naming the mistake.
  const std::string admin = t.GetMetricsListener("/metrics", "Bearer " + t.token);
  CHECK(StatusOf(admin) == 403);
  CHECK(BodyOf(admin).find("metrics token only") != std::string::npos);
  CHECK(StatusOf(t.GetMetricsListener("/metrics", "Bearer " + t.read_token)) == 403);
}

TEST_CASE("daemon tokens: the single token of an earlier version becomes the admin token") {
  testing::TempDir dir;
  ::mkdir((dir.path() + "/secrets").c_str(), 0700);
  const std::string earlier(43, 'E');
  const std::string file = dir.path() + "/secrets/" + kDaemonTokenSecret;
  std::ofstream(file) << earlier;
  ::chmod(file.c_str(), 0600);
  auto tokens = LoadOrCreateDaemonTokens(dir.path() + "/secrets");
  REQUIRE(tokens.ok());
  CHECK(tokens->admin == earlier);
  CHECK(tokens->read.size() == 43);
  CHECK(tokens->metrics.size() == 43);
  CHECK(tokens->read != earlier);
  CHECK(BearerScope("Bearer " + earlier, *tokens) == TokenScope::kAdmin);
}

TEST_CASE("daemon tokens: each request's scope") {
  DaemonTokens tokens{"m", "r", "a"};
  CHECK(BearerScope("Bearer m", tokens) == TokenScope::kMetrics);
  CHECK(BearerScope("Bearer r", tokens) == TokenScope::kRead);
  CHECK(BearerScope("Bearer a", tokens) == TokenScope::kAdmin);
  CHECK_FALSE(BearerScope("Bearer x", tokens));
  CHECK_FALSE(BearerScope("", tokens));
  HttpRequest request;
  request.method = "GET";
  request.path = "/metrics";
  CHECK(ScopeNeeded(request) == TokenScope::kMetrics);
  request.path = "/api/v1/plan";
  CHECK(ScopeNeeded(request) == TokenScope::kRead);
  request.method = "POST";
  CHECK(ScopeNeeded(request) == TokenScope::kAdmin);
  request.method = "DELETE";
  request.path = "/metrics";
  CHECK(ScopeNeeded(request) == TokenScope::kAdmin);
  CHECK(ParseTokenScope("read") == TokenScope::kRead);
  CHECK_FALSE(ParseTokenScope("root"));
}

}  // namespace
}  // namespace clusterctl
