// HttpServer: the daemon's HTTP/1.1 server (Boost.Beast on Boost.Asio), the
// only code that speaks HTTP. It knows nothing of clusterctl: a handler maps
// each request to a response, or to a stream of server-sent events.
//
// Hostile clients are expected: headers are limited to 8 KiB and bodies to
// `max_body_bytes`; a client gets `header_timeout` to send its headers and
// `body_timeout` for its body (a slowloris connection is closed); a write
// that makes no progress for `write_timeout` closes its connection (a client
// that pipelines requests and never reads the answers); a client that goes
// away in the middle of an event stream only ends its stream. Connections
// are admitted by ConnectionLimits (connection_limits.h): `max_connections`
// ordinary slots, at most `max_connections_per_address` of them for one
// client address, and `reserved_connections` more on which one request
// that `may_use_reserve` accepts is served; others are answered 503. Either
// way a reserved connection closes after its answer.
// When accepting fails (out of file descriptors), the server says so once in
// its log, tries again every `accept_retry`, and says when it accepts again.
// A HEAD request gets the headers of its GET and no body.
//
// Threads: one I/O thread runs every connection. Handlers run on it and must
// be quick (read a cache, hand work to another thread); an event stream's
// source is polled from it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/log.h"
#include "common/status.h"

namespace clusterctl {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target without its query
  std::map<std::string, std::string> query;
  std::string authorization;  // the Authorization header, as sent
  std::string content_type;
  std::string last_event_id;  // the Last-Event-ID header: a stream's client resuming
  std::string body;
  bool from_loopback = false;
  std::string peer;  // "address:port"
  // False when the client asked for the connection to end after this
  // response (Connection: close, or HTTP/1.0 without keep-alive): the server
  // then closes it at once instead of waiting for the idle timeout.
  bool keep_alive = true;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// One server-sent event: its `data:` payload, shared with the source and
// every other stream that sends it (a stream holds no copy of its own).
struct StreamEvent {
  uint64_t id = 0;  // sent as `id:` (a client resumes after it with Last-Event-ID); 0: none
  std::shared_ptr<const std::string> data;  // one line of JSON, no line break
};

// What an event stream's source says when polled: new events, and whether
// the stream has ended.
struct EventBatch {
  std::vector<StreamEvent> events;
  bool ended = false;
};
// Polled with the most bytes of payload the stream takes at a time: the
// source returns no more (but at least one event, when it has any).
using EventSource = std::function<EventBatch(size_t max_bytes)>;

// A handler answers with a response, or with an event stream: the server
// sends the headers, then polls the source until it ends or the client goes.
using HttpReply = std::variant<HttpResponse, EventSource>;
using HttpHandler = std::function<HttpReply(const HttpRequest&)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  int port = 9420;  // 0: any free port (tests)
  size_t max_body_bytes = 64 * 1024;
  std::chrono::seconds header_timeout{10};
  std::chrono::seconds body_timeout{10};
  std::chrono::seconds write_timeout{10};
  size_t max_connections = 256;
  size_t max_connections_per_address = 32;
  size_t reserved_connections = 16;
  // Whether a request may be served on a reserved slot; none is when empty.
  std::function<bool(const HttpRequest&)> may_use_reserve;
  std::chrono::milliseconds stream_poll{200};
  std::chrono::seconds stream_heartbeat{15};
  // A stream takes at most this much of its source's events at a time, and
  // holds it (shared with the source) until written: a reader that stops
  // reading holds no more, and is dropped after `write_timeout`.
  size_t stream_batch_bytes = 64 * 1024;
  std::chrono::milliseconds accept_retry{100};
  // The server's own troubles (accepting fails), one line each; may be empty.
  std::function<void(LogLevel, const std::string&)> log;
};

class HttpServer {
 public:
  // Binds and listens (an error names the address); serving starts with Start().
  static Result<std::unique_ptr<HttpServer>> Listen(const HttpServerOptions& options, HttpHandler handler);
  ~HttpServer();  // stops: no new connection, open ones closed

  int port() const;
  void Start();
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "a=1&b=x%20y" -> {a: 1, b: "x y"}
std::map<std::string, std::string> ParseQuery(std::string_view query);

}  // namespace clusterctl
