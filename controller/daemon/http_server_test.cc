#include "controller/daemon/http_server.h"

#include <doctest/doctest.h>

#include <thread>

#include "controller/daemon/http_test_client.h"

namespace clusterctl {
namespace {

using namespace std::chrono_literals;
using testing::RawClient;
using testing::Request;
using testing::BodyOf;
using testing::HeaderOf;
using testing::StatusOf;

// A server whose handler echoes the request, answers 1 MiB on /big,
// streams three events then waits forever on /stream, or streams 64 KiB
// events without end on /flood.
struct EchoServer {
  std::atomic<int> stream_polls{0};
  std::unique_ptr<HttpServer> server;

  explicit EchoServer(HttpServerOptions options = Quick()) {
    auto listening = HttpServer::Listen(options, [this](const HttpRequest& r) -> HttpReply {
      if (r.path == "/big") return HttpResponse{200, "text/plain", std::string(1024 * 1024, 'b'), {}};
      if (r.path == "/stream") {
        auto sent = std::make_shared<int>(0);
        return EventSource([this, sent](size_t) {
          ++stream_polls;
          EventBatch batch;
          if (*sent < 3) batch.events.push_back({0, std::make_shared<const std::string>("{\"n\":" + std::to_string((*sent)++) + "}")});
          return batch;
        });
      }
      if (r.path == "/flood") {  // 64 KiB events, as many as the stream takes
        auto event = std::make_shared<const std::string>(std::string(64 * 1024, 'e'));
        return EventSource([this, event](size_t max_bytes) {
          ++stream_polls;
          EventBatch batch;
          for (size_t bytes = 0; bytes + event->size() <= max_bytes; bytes += event->size()) batch.events.push_back({1, event});
          return batch;
        });
      }
      return HttpResponse{200, "text/plain", r.method + " " + r.path + " q=" + (r.query.count("q") ? r.query.at("q") : "") +
                                                 " body=" + std::to_string(r.body.size()),
                          {}};
    });
    REQUIRE(listening.ok());
    server = std::move(listening).value();
    server->Start();
  }
  static HttpServerOptions Quick() {
    HttpServerOptions options;
    options.port = 0;
    options.header_timeout = 1s;
    options.body_timeout = 1s;
    options.max_body_bytes = 1024;
    options.max_connections = 8;
    options.max_connections_per_address = 8;
    options.reserved_connections = 0;
    options.stream_poll = 20ms;
    return options;
  }
  int port() const { return server->port(); }
};

TEST_CASE("http server: a request is answered, keep-alive serves a second one, the query is decoded") {
  EchoServer echo;
  RawClient client(echo.port());
  REQUIRE(client.connected());
  client.Send(Request("GET", "/a%20b?q=x%20y&z"));
  std::string first = client.Receive(2s, "body=0");
  CHECK(StatusOf(first) == 200);
  CHECK(first.find("GET /a b q=x y body=0") != std::string::npos);
  client.Send(Request("POST", "/p", "", "hello"));
  CHECK(client.Receive(2s, "body=5").find("POST /p q= body=5") != std::string::npos);
}

TEST_CASE("http server: a client's Connection: close ends the connection after the response") {
  // The idle timeout is longer than the client waits: a connection seen
  // closed was closed because the request asked for it.
  HttpServerOptions options = EchoServer::Quick();
  options.header_timeout = 30s;
  EchoServer echo(options);
  for (const std::string& request : {Request("GET", "/x", "Connection: close\r\n"),
                                     std::string("GET /x HTTP/1.0\r\nHost: localhost\r\n\r\n")}) {
    RawClient client(echo.port());
    REQUIRE(client.connected());
    client.Send(request);
    bool closed = false;
    const std::string response = client.Receive(10s, "", &closed);
    CHECK(StatusOf(response) == 200);
    CHECK(response.find("Connection: close\r\n") != std::string::npos);
    CHECK(closed);
  }
}

TEST_CASE("http server: hostile clients get a status and only their connection ends") {
  EchoServer echo;
  SUBCASE("a body over the limit is 413") {
    RawClient client(echo.port());
    client.Send(Request("POST", "/p", "", std::string(5000, 'x')));
    CHECK(StatusOf(client.Receive(2s, "\r\n\r\n")) == 413);
  }
  SUBCASE("headers over 8 KiB are 431") {
    RawClient client(echo.port());
    client.Send(Request("GET", "/", "X-Big: " + std::string(9000, 'a') + "\r\n"));
    CHECK(StatusOf(client.Receive(2s, "\r\n\r\n")) == 431);
  }
  SUBCASE("a malformed request line is 400") {
    RawClient client(echo.port());
    client.Send("NOT HTTP AT ALL\r\n\r\n");
    CHECK(StatusOf(client.Receive(2s, "\r\n\r\n")) == 400);
  }
  SUBCASE("a client that sends half its headers is closed after the header timeout") {
    RawClient client(echo.port());
    client.Send("GET / HTTP/1.1\r\nHost: x\r\n");
    bool closed = false;
    const auto start = std::chrono::steady_clock::now();
    client.Receive(5s, "", &closed);
    CHECK(closed);
    CHECK(std::chrono::steady_clock::now() - start < 3s);
  }
  SUBCASE("a client that promises a body and never sends it is closed after the body timeout") {
    RawClient client(echo.port());
    client.Send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
    bool closed = false;
    client.Receive(5s, "", &closed);
    CHECK(closed);
  }
  // Whatever happened above, the server still answers.
  RawClient after(echo.port());
  after.Send(Request("GET", "/still"));
  CHECK(StatusOf(after.Receive(2s, "body=0")) == 200);
}

TEST_CASE("http server: connections over the limit are answered 503") {
  EchoServer echo;
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(std::make_unique<RawClient>(echo.port()));
  std::this_thread::sleep_for(100ms);
  RawClient extra(echo.port());
  CHECK(StatusOf(extra.Receive(2s, "\r\n\r\n")) == 503);
  idle.clear();
  std::this_thread::sleep_for(100ms);
  RawClient later(echo.port());
  later.Send(Request("GET", "/"));
  CHECK(StatusOf(later.Receive(2s, "body=0")) == 200);
}

TEST_CASE("http server: a client that pipelines requests and never reads is closed once writes make no progress") {
  HttpServerOptions options = EchoServer::Quick();
  options.header_timeout = 30s;
  options.write_timeout = 1s;
  options.max_connections = 2;
  EchoServer echo(options);
  std::string pipelined;
  for (int i = 0; i < 16; ++i) pipelined += Request("GET", "/big");
  std::vector<std::unique_ptr<RawClient>> stuck;
  for (int i = 0; i < 2; ++i) {
    stuck.push_back(std::make_unique<RawClient>(echo.port(), testing::RawClientOptions{nullptr, 4096}));
    stuck.back()->Send(pipelined);
  }
  std::this_thread::sleep_for(300ms);
  RawClient during(echo.port());
  CHECK(StatusOf(during.Receive(2s, "\r\n\r\n")) == 503);  // both slots are held, for now
  std::this_thread::sleep_for(1500ms);
  RawClient after(echo.port());
  after.Send(Request("GET", "/x"));
  CHECK(StatusOf(after.Receive(2s, "body=0")) == 200);
}

TEST_CASE("http server: one address holds its share; past it only privileged requests get the reserve") {
  HttpServerOptions options = EchoServer::Quick();
  options.header_timeout = 30s;
  options.max_connections = 4;
  options.max_connections_per_address = 2;
  options.reserved_connections = 1;
  options.may_use_reserve = [](const HttpRequest& r) { return r.path == "/privileged"; };
  EchoServer echo(options);
  RawClient first(echo.port()), second(echo.port());  // 127.0.0.1's share, held silently
  std::this_thread::sleep_for(100ms);
  SUBCASE("an ordinary request past the share is 503") {
    RawClient third(echo.port());
    third.Send(Request("GET", "/x"));
    CHECK(StatusOf(third.Receive(2s, "\r\n\r\n")) == 503);
  }
  SUBCASE("a privileged request past the share is served, one on the connection") {
    RawClient third(echo.port());
    third.Send(Request("GET", "/privileged") + Request("GET", "/privileged"));
    bool closed = false;
    const std::string answer = third.Receive(2s, "", &closed);
    CHECK(StatusOf(answer) == 200);
    CHECK(HeaderOf(answer, "Connection") == "close");
    CHECK(answer.find("GET /privileged q= body=0") == answer.rfind("GET /privileged q= body=0"));  // one answer
    CHECK(closed);
  }
  SUBCASE("another address has its own share") {
    RawClient other(echo.port(), {"127.0.0.2"});
    other.Send(Request("GET", "/x"));
    CHECK(StatusOf(other.Receive(2s, "body=0")) == 200);
  }
  SUBCASE("a silent connection on the reserve gives way to a new one") {
    RawClient silent(echo.port());
    std::this_thread::sleep_for(100ms);
    RawClient admin(echo.port());
    admin.Send(Request("GET", "/privileged"));
    CHECK(StatusOf(admin.Receive(2s, "body=0")) == 200);
    bool closed = false;
    silent.Receive(2s, "", &closed);
    CHECK(closed);
  }
}

TEST_CASE("http server: an event stream sends its events; a client that goes away ends only its stream") {
  EchoServer echo;
  {
    RawClient client(echo.port());
    client.Send(Request("GET", "/stream"));
    std::string events = client.Receive(2s, "{\"n\":2}");
    CHECK(events.find("Content-Type: text/event-stream") != std::string::npos);
    CHECK(events.find("data: {\"n\":0}\n\n") != std::string::npos);
    CHECK(events.find("data: {\"n\":2}\n\n") != std::string::npos);
  }  // the client disconnects while the stream is open
  std::this_thread::sleep_for(200ms);
  const int polls = echo.stream_polls;
  std::this_thread::sleep_for(300ms);
  CHECK(polls > 0);
  CHECK(echo.stream_polls == polls);  // the stream noticed and stopped polling its source
  RawClient after(echo.port());
  after.Send(Request("GET", "/x"));
  CHECK(StatusOf(after.Receive(2s, "body=0")) == 200);
}

TEST_CASE("http server: HEAD gets the headers and no body, of a response and of an event stream") {
  EchoServer echo;
  RawClient client(echo.port());
  client.Send(Request("HEAD", "/x") + Request("GET", "/y"));
  const std::string both = client.Receive(2s, "body=0");
  CHECK(both.find("HEAD /x") == std::string::npos);
  CHECK(StatusOf(both.substr(both.find("\r\n\r\n") + 4)) == 200);  // the GET's answer follows the HEAD's headers
  CHECK(both.find("GET /y q= body=0") != std::string::npos);

  RawClient stream(echo.port());
  stream.Send(Request("HEAD", "/stream"));
  bool closed = false;
  const std::string head = stream.Receive(2s, "", &closed);
  CHECK(head.find("Content-Type: text/event-stream") != std::string::npos);
  CHECK(BodyOf(head).empty());
  CHECK(closed);
}

TEST_CASE("http server: an event stream's reader that stops reading is dropped after the write timeout") {
  HttpServerOptions options = EchoServer::Quick();
  options.write_timeout = 1s;
  EchoServer echo(options);
  RawClient reader(echo.port(), testing::RawClientOptions{nullptr, 4096});
  reader.Send(Request("GET", "/flood"));
  std::this_thread::sleep_for(1500ms);  // past the write timeout, the buffers long full
  const int polls = echo.stream_polls;
  CHECK(polls > 0);
  bool closed = false;
  reader.Receive(5s, "", &closed);
  CHECK(closed);  // what the server had written, then the end
  CHECK(echo.stream_polls == polls);
}

TEST_CASE("http server: listening on a bad address names it") {
  HttpServerOptions options;
  options.address = "not-an-address";
  auto server = HttpServer::Listen(options, [](const HttpRequest&) -> HttpReply { return HttpResponse{}; });
  REQUIRE_FALSE(server.ok());
  CHECK(server.status().message().find("not-an-address") != std::string::npos);
}

}  // namespace
}  // namespace clusterctl
