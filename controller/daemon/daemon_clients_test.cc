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

}  // namespace
}  // namespace clusterctl
