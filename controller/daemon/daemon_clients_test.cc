// The daemon against hostile or careless HTTP clients (issue 31): each test
// failed on the daemon before its fix.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <thread>

#include "common/strings.h"
#include "controller/daemon/test_daemon.h"
#include "controller/engine/fake_fleet.h"

namespace clusterctl {
namespace {

using namespace std::chrono_literals;
using testing::BodyOf;
using testing::HeaderOf;
using testing::RawClient;
using testing::RawClientOptions;
using testing::Request;
using testing::StatusOf;
using testing::TestDaemon;

size_t Occurrences(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

TEST_CASE("daemon: 260 clients that pipeline GET / and never read leave /healthz and the API to others (issue 31, item 3)") {
  TestDaemon t;
  std::string pipelined;
  for (int i = 0; i < 32; ++i) pipelined += Request("GET", "/");
  std::vector<std::unique_ptr<RawClient>> flood;
  for (int i = 0; i < 260; ++i) {
    flood.push_back(std::make_unique<RawClient>(t.daemon->port(), RawClientOptions{nullptr, 4096}));
    REQUIRE(flood.back()->connected());
    flood.back()->Send(pipelined);
  }
  std::this_thread::sleep_for(500ms);
  CHECK(StatusOf(t.Get("/healthz", "")) == 200);
  CHECK(StatusOf(t.Get("/api/v1/status", "Bearer " + t.token)) == 200);
  CHECK(StatusOf(t.Get("/", "")) == 503);  // the flooding address has used its share
  CHECK(StatusOf(t.Get("/api/v1/status", "", "127.0.0.2")) == 401);  // another address has its own

  // Clients that connect and say nothing cannot hold the reserve either.
  std::vector<std::unique_ptr<RawClient>> silent;
  for (int i = 0; i < 40; ++i) silent.push_back(std::make_unique<RawClient>(t.daemon->port()));
  std::this_thread::sleep_for(200ms);
  CHECK(StatusOf(t.Get("/healthz", "")) == 200);
  CHECK(StatusOf(t.Get("/api/v1/jobs", "Bearer " + t.token)) == 200);
}

// The `data:` payloads of an event stream's response, parsed.
std::vector<nlohmann::json> EventsOf(const std::string& response) {
  std::vector<nlohmann::json> events;
  const std::string body = BodyOf(response);
  for (size_t at = body.find("data: "); at != std::string::npos; at = body.find("data: ", at + 1)) {
    events.push_back(nlohmann::json::parse(body.substr(at + 6, body.find('\n', at) - at - 6), nullptr, false));
  }
  return events;
}

TEST_CASE("daemon: a node's 15 MiB step output is cut at a character in the job's events, saying how much; a dropped client resumes (issue 31, item 4)") {
  testing::FakeFleet fleet;
  for (const char* name : {"node01", "node02", "node03"}) fleet.Add(name);
  std::string huge;
  while (huge.size() < 15 * 1024 * 1024) huge += "x\xc3\xa9";  // "xé": a cut can fall inside a character
  fleet.node("node01").intercept = [&huge](const agent_protocol::IncomingRequest& in) -> testing::Interception {
    if (!std::holds_alternative<agent_protocol::ResourceRequest>(in.request)) return {};
    agent_protocol::ResourceResult failed;
    failed.Fail("echo failed");
    failed.output = huge;
    return agent_protocol::EncodeResourceReply(in.id, failed);
  };
  TestDaemon t(&fleet, testing::kEchoRole);
  REQUIRE(StatusOf(t.Post("/api/v1/deploy", R"({"roles":["echo"]})")) == 202);
  REQUIRE(t.WaitForJob(1).is_object());

  const std::string stream = t.Get("/api/v1/events?job=1", "Bearer " + t.token);
  REQUIRE(StatusOf(stream) == 200);
  CHECK(stream.size() < 256 * 1024);
  std::string output;
  for (const nlohmann::json& event : EventsOf(stream)) {
    if (event.value("event", "") == "step" && event.value("host", "") == "node01") output = event.value("output", "");
  }
  REQUIRE_FALSE(output.empty());
  CHECK_FALSE(FindInvalidUtf8(output));
  CHECK(output.find("\xef\xbf\xbd") == std::string::npos);  // no character was split (JSON would show U+FFFD)
  std::smatch marker;
  REQUIRE(std::regex_search(output, marker, std::regex(R"(\n\[(\d+) more bytes cut\]$)")));
  const size_t kept = static_cast<size_t>(marker.position(0));
  CHECK(output.substr(0, kept) == huge.substr(0, kept));
  CHECK(std::stoull(marker[1].str()) == huge.size() - kept);

  // A client dropped on the way resumes after the last event it saw.
  const size_t last_id = stream.rfind("id: ");
  REQUIRE(last_id != std::string::npos);
  const uint64_t last = std::stoull(stream.substr(last_id + 4));
  const auto resume_after = [&t](const std::string& id) {
    return t.Exchange(Request("GET", "/api/v1/events?job=1", "Authorization: Bearer " + t.token +
                                                               "\r\nLast-Event-ID: " + id + "\r\nConnection: close\r\n"));
  };
  const std::vector<nlohmann::json> rest = EventsOf(resume_after(std::to_string(last - 1)));
  REQUIRE(rest.size() == 1);
  CHECK(rest[0]["event"] == "job_finished");
  CHECK(StatusOf(resume_after("x")) == 400);
}

TEST_CASE("daemon: HEAD answers the headers of GET and no body (issue 31, item 12)") {
  TestDaemon t;
  const std::string get = t.Get("/", "");
  const std::string head = t.Exchange(Request("HEAD", "/", "Connection: close\r\n"));
  REQUIRE(StatusOf(head) == 200);
  CHECK(BodyOf(head).empty());
  CHECK(HeaderOf(head, "Content-Length") == std::to_string(BodyOf(get).size()));

  // On a kept-alive connection, the next response follows the HEAD's headers at once.
  RawClient client(t.daemon->port());
  client.Send(Request("HEAD", "/healthz") + Request("GET", "/healthz", "Connection: close\r\n"));
  const std::string both = client.Receive(10s);
  const size_t first_end = both.find("\r\n\r\n");
  REQUIRE(first_end != std::string::npos);
  CHECK(StatusOf(both.substr(first_end + 4)) == 200);
  CHECK(BodyOf(both.substr(first_end + 4)) == "{\"ok\":true}\n");
}

size_t OpenDescriptors() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

TEST_CASE("daemon: out of file descriptors, the accept loop waits, says so once, then serves (issue 31, item 12)") {
  TestDaemon t;
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &old) == 0);
  rlimit low = old;
  low.rlim_cur = OpenDescriptors() + 16;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  std::vector<int> held;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held.push_back(fd);
  ::close(held.back());  // room for the client's socket; none for the daemon's accept
  held.pop_back();
  RawClient client(t.daemon->port());
  const bool connected = client.connected();
  client.Send(Request("GET", "/healthz", "Connection: close\r\n"));
  std::this_thread::sleep_for(1s);
  for (int fd : held) ::close(fd);
  ::setrlimit(RLIMIT_NOFILE, &old);
  REQUIRE(connected);

  CHECK(StatusOf(client.Receive(10s)) == 200);
  const std::string log = t.log.str();
  CAPTURE(log);
  CHECK(Occurrences(log, "cannot accept a connection") == 1);
  std::smatch again;
  REQUIRE(std::regex_search(log, again, std::regex(R"(accepting connections again \((\d+) accepts failed\))")));
  CHECK(std::stoul(again[1].str()) <= 50);  // about one try per 100 ms for 1 s, not a spin
}

TEST_CASE("daemon: the page keeps its script and style in their own resources under a strict policy (issue 31, item 13)") {
  TestDaemon t;
  const std::string page = t.Get("/", "");
  REQUIRE(StatusOf(page) == 200);
  const std::string policy = HeaderOf(page, "Content-Security-Policy");
  CAPTURE(policy);
  for (const char* directive : {"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                                "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"}) {
    CHECK(policy.find(directive) != std::string::npos);
  }
  CHECK(policy.find("unsafe") == std::string::npos);
  const std::string html = BodyOf(page);
  CHECK(Occurrences(html, "<script") == 1);
  CHECK(html.find("<script src=\"/app.js\"></script>") != std::string::npos);
  CHECK(html.find("<style") == std::string::npos);
  CHECK_FALSE(std::regex_search(html, std::regex(R"(\s(on[a-z]+|style)\s*=)", std::regex::icase)));

  const std::string script = t.Get("/app.js", "");  // code, no data: no token needed
  REQUIRE(StatusOf(script) == 200);
  CHECK(HeaderOf(script, "Content-Type") == "text/javascript; charset=utf-8");
  CHECK(BodyOf(script).find("history.replaceState") != std::string::npos);  // the token leaves the address bar
  const std::string style = t.Get("/app.css", "");
  REQUIRE(StatusOf(style) == 200);
  CHECK(HeaderOf(style, "Content-Type") == "text/css; charset=utf-8");
}

}  // namespace
}  // namespace clusterctl
