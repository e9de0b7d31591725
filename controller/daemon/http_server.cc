#include "controller/daemon/http_server.h"

#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/socket.h>

#include <cerrno>

#include "common/clock.h"
#include "common/strings.h"
#include "controller/daemon/connection_limits.h"

namespace clusterctl {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// A stream's heartbeat is on the machine's own time.
const SystemClock kMachineClock;

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string UrlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 && HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The response's bytes; a HEAD's (`with_body` false) keep the Content-Length
// of the body they leave out.
std::string Serialize(const HttpResponse& response, bool keep_alive, bool with_body = true) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " + Reason(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  return with_body ? out + response.body : out;
}

HttpResponse Error(int status, const std::string& message) {
  return {status, "application/json", "{\"error\":\"" + message + "\"}\n", {}};
}

// True when the client has closed its side (an event stream's client sends
// nothing after its request, so a readable socket with no data is gone).
bool PeerClosed(tcp::socket& socket) {
  char byte;
  const ssize_t n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  for (const std::string& pair : Split(query, '&')) {
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    out[UrlDecode(pair.substr(0, eq))] = eq == std::string::npos ? "" : UrlDecode(pair.substr(eq + 1));
  }
  return out;
}

struct HttpServer::Impl {
  // Declared before `io`: the coroutines `io` destroys with it release their
  // slots in `limits` and `silent`.
  HttpServerOptions options;
  HttpHandler handler;
  ConnectionLimits limits{{}};
  std::map<uint64_t, beast::tcp_stream*> silent;  // reserved connections before their first request
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::thread thread;

  void Log(LogLevel level, const std::string& line) const {
    if (options.log) options.log(level, line);
  }

  // A failed accept (EMFILE, ENFILE, ENOBUFS) fails again at once while its
  // cause lasts: wait `accept_retry` before the next try instead of spinning,
  // and log the first failure and the recovery, not each try.
  asio::awaitable<void> Accept() {
    asio::steady_timer pause(io);
    size_t failures = 0;
    while (acceptor.is_open()) {
      tcp::socket socket(io);
      boost::system::error_code error;
      co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, error));
      if (!acceptor.is_open()) co_return;
      if (error == asio::error::connection_aborted) continue;  // that client gave up; nothing is short
      if (error) {
        if (failures++ == 0) {
          Log(LogLevel::kWarning, "cannot accept a connection (" + error.message() + "); trying again every " +
              std::to_string(options.accept_retry.count()) + " ms");
        }
        pause.expires_after(options.accept_retry);
        co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, error));
        continue;
      }
      if (failures > 0) Log(LogLevel::kInfo, "accepting connections again (" + std::to_string(failures) + " accepts failed)");
      failures = 0;
      asio::co_spawn(io, Session(std::move(socket)), asio::detached);
    }
  }

  static HttpRequest Convert(const http::request<http::string_body>& in, const tcp::endpoint& peer) {
    HttpRequest request;
    request.method = std::string(in.method_string());
    const std::string target(in.target());
    const size_t question = target.find('?');
    request.path = UrlDecode(target.substr(0, question));
    if (question != std::string::npos) request.query = ParseQuery(std::string_view(target).substr(question + 1));
    request.authorization = std::string(in[http::field::authorization]);
    request.content_type = std::string(in[http::field::content_type]);
    request.last_event_id = std::string(in["Last-Event-ID"]);
    request.body = in.body();
    request.from_loopback = peer.address().is_loopback();
    request.peer = peer.address().to_string() + ":" + std::to_string(peer.port());
    request.keep_alive = in.keep_alive();
    return request;
  }

  // Reads one request; nullopt when the connection should just close, or a
  // response for a request that could not be read (too large, malformed).
  asio::awaitable<std::variant<std::monostate, HttpRequest, HttpResponse>> Read(beast::tcp_stream& stream,
                                                                              beast::flat_buffer& buffer,
                                                                              const tcp::endpoint& peer) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(8 * 1024);
    parser.body_limit(options.max_body_bytes);
    try {
      stream.expires_after(options.header_timeout);
      co_await http::async_read_header(stream, buffer, parser, asio::use_awaitable);
      stream.expires_after(options.body_timeout);
      co_await http::async_read(stream, buffer, parser, asio::use_awaitable);
    } catch (const boost::system::system_error& e) {
      if (e.code() == http::error::body_limit) co_return Error(413, "the body is larger than " + std::to_string(options.max_body_bytes) + " bytes");
      if (e.code() == http::error::header_limit) co_return Error(431, "the headers are larger than 8 KiB");
      if (e.code() == http::error::end_of_stream || e.code() == beast::error::timeout ||
          e.code() == asio::error::eof || e.code() == asio::error::connection_reset ||
          e.code() == asio::error::operation_aborted || e.code() == asio::error::bad_descriptor) {
        co_return std::monostate{};
      }
      co_return Error(400, "malformed HTTP request");
    }
    co_return Convert(parser.get(), peer);
  }

  // Sends the stream's headers, then (unless `head_only`) its events until
  // the source ends or the client goes; a comment line when it was idle for
  // `stream_heartbeat`.
  asio::awaitable<void> Stream(beast::tcp_stream& stream, const EventSource& source, bool head_only) {
    const std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
    co_await WriteAll(stream, asio::buffer(head));
    if (head_only) co_return;
    auto last_write = kMachineClock.Monotonic();
    asio::steady_timer timer(io);
    while (true) {
      const EventBatch batch = source(options.stream_batch_bytes);
      if (!batch.events.empty()) {
        co_await WriteEvents(stream, batch.events);
        last_write = kMachineClock.Monotonic();
      } else if (kMachineClock.Monotonic() - last_write > options.stream_heartbeat) {
        static const std::string kAlive = ": alive\n\n";
        co_await WriteAll(stream, asio::buffer(kAlive));
        last_write = kMachineClock.Monotonic();
      }
      if (batch.ended || PeerClosed(stream.socket())) co_return;
      if (!batch.events.empty()) continue;  // more may be waiting
      timer.expires_after(options.stream_poll);
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  // Writes `events` in their framing; the payloads are written from the
  // shared strings themselves.
  asio::awaitable<void> WriteEvents(beast::tcp_stream& stream, const std::vector<StreamEvent>& events) {
    static const std::string kEnd = "\n\n";
    std::vector<std::string> heads;
    heads.reserve(events.size());
    std::vector<asio::const_buffer> buffers;
    for (const StreamEvent& event : events) {
      heads.push_back((event.id ? "id: " + std::to_string(event.id) + "\n" : std::string()) + "data: ");
      buffers.push_back(asio::buffer(heads.back()));
      buffers.push_back(asio::buffer(*event.data));
      buffers.push_back(asio::buffer(kEnd));
    }
    co_await WriteAll(stream, buffers);
  }

  // Writes every byte of `buffers`. A write that makes no progress within
  // `write_timeout` throws (beast::error::timeout): a client that stops
  // reading cannot hold its connection.
  template <class Buffers>
  asio::awaitable<void> WriteAll(beast::tcp_stream& stream, const Buffers& buffers) {
    beast::buffers_suffix<Buffers> rest(buffers);
    while (beast::buffer_bytes(rest) > 0) {
      stream.expires_after(options.write_timeout);
      rest.consume(co_await stream.async_write_some(rest, asio::use_awaitable));
    }
  }

  asio::awaitable<void> Refuse(beast::tcp_stream& stream) {
    const std::string busy = Serialize(Error(503, "too many connections"), false);
    co_await WriteAll(stream, asio::buffer(busy));
  }

  // A silent reserved connection gave way to a newer one: its read ends.
  void Evict(uint64_t id) {
    auto it = silent.find(id);
    if (it == silent.end()) return;
    it->second->close();
    silent.erase(it);
  }

  asio::awaitable<void> Session(tcp::socket socket) {
    boost::system::error_code ignored;
    const tcp::endpoint peer = socket.remote_endpoint(ignored);
    beast::tcp_stream stream(std::move(socket));
    const ConnectionLimits::Admission admission = limits.Admit(peer.address().to_string());
    Evict(admission.evicted);
    struct Held {
      Impl& impl;
      uint64_t id;
      ~Held() {
        impl.silent.erase(id);
        impl.limits.Release(id);
      }
    } held{*this, admission.id};
    try {
      if (admission.slot == ConnectionLimits::Slot::kRefused) {
        co_await Refuse(stream);
      } else {
        if (admission.slot == ConnectionLimits::Slot::kReserved) silent[admission.id] = &stream;
        co_await Serve(stream, peer, admission);
      }
    } catch (const std::exception&) {
      // The client went away or was too slow: only its connection ends.
    }
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  // Reads and answers requests until the connection should end. On a
  // reserved slot only a privileged request is answered, and only one: a
  // client without the token cannot keep the slot with /healthz requests.
  asio::awaitable<void> Serve(beast::tcp_stream& stream, const tcp::endpoint& peer,
                              const ConnectionLimits::Admission& admission) {
    const bool reserved = admission.slot == ConnectionLimits::Slot::kReserved;
    beast::flat_buffer buffer;
    while (true) {
      auto read = co_await Read(stream, buffer, peer);
      limits.Spoke(admission.id);
      silent.erase(admission.id);
      if (std::holds_alternative<std::monostate>(read)) co_return;
      if (auto* refused = std::get_if<HttpResponse>(&read)) {
        const std::string text = Serialize(*refused, false);
        co_await WriteAll(stream, asio::buffer(text));
        co_return;
      }
      HttpRequest& request = std::get<HttpRequest>(read);
      if (reserved && !(options.may_use_reserve && options.may_use_reserve(request))) {
        co_await Refuse(stream);
        co_return;
      }
      if (reserved) request.keep_alive = false;
      if (!co_await Answer(stream, request)) co_return;
    }
  }

  // Answers one request; false when the connection ends after it.
  asio::awaitable<bool> Answer(beast::tcp_stream& stream, const HttpRequest& request) {
    const bool head = request.method == "HEAD";
    HttpReply reply = handler(request);
    if (auto* events = std::get_if<EventSource>(&reply)) {
      co_await Stream(stream, *events, head);
      co_return false;
    }
    const std::string text = Serialize(std::get<HttpResponse>(reply), request.keep_alive, !head);
    co_await WriteAll(stream, asio::buffer(text));
    co_return request.keep_alive;
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::Listen(const HttpServerOptions& options, HttpHandler handler) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->handler = std::move(handler);
  impl->limits = ConnectionLimits({options.max_connections, options.max_connections_per_address,
                                   options.reserved_connections});
  boost::system::error_code error;
  const auto address = asio::ip::make_address(options.address, error);
  if (error) return Status::InvalidArgument("'" + options.address + "' is not an IP address");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  impl->acceptor.open(endpoint.protocol(), error);
  if (!error) impl->acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) impl->acceptor.bind(endpoint, error);
  if (!error) impl->acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return Status::Unavailable("cannot listen on " + options.address + ":" + std::to_string(options.port) + ": " +
                               error.message());
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::Start() {
  asio::co_spawn(impl_->io, impl_->Accept(), asio::detached);
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void HttpServer::Stop() {
  if (!impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->io.stop();
  });
  impl_->thread.join();
}

}  // namespace clusterctl
