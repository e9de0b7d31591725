#include "controller/remote/http_client.h"

#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace clusterctl {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::asio::use_awaitable;

Task<Result<HttpReply>> HttpRequest(HttpTarget target, std::string method, std::string path, std::string body,
                                    std::chrono::milliseconds timeout) {
  const std::string where = method + " http://" + target.address + ":" + std::to_string(target.port) + path;
  const http::verb verb = http::string_to_verb(method);
  if (verb == http::verb::unknown) co_return Status::InvalidArgument(where + ": unknown method");
  std::string failed;
  try {
    auto executor = co_await boost::asio::this_coro::executor;
    boost::asio::ip::tcp::resolver resolver(executor);
    beast::tcp_stream stream(executor);
    stream.expires_after(timeout);  // one deadline for the whole exchange
    auto endpoints = co_await resolver.async_resolve(target.address, std::to_string(target.port), use_awaitable);
    co_await stream.async_connect(endpoints, use_awaitable);
    http::request<http::string_body> request(verb, path, 11);
    request.set(http::field::host, target.address + ":" + std::to_string(target.port));
    request.set(http::field::user_agent, "clusterctl");
    if (!body.empty()) {
      request.set(http::field::content_type, "application/json");
      request.body() = std::move(body);
    }
    request.prepare_payload();
    co_await http::async_write(stream, request, use_awaitable);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(1 << 20);
    co_await http::async_read(stream, buffer, parser, use_awaitable);
    beast::error_code ignored;
    stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    co_return HttpReply{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
  } catch (const boost::system::system_error& error) {
    failed = error.code() == beast::error::timeout ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                                    : error.code().message();
  } catch (const std::exception& error) {
    failed = error.what();
  }
  co_return Status::Unavailable(where + ": " + failed);
}

}  // namespace clusterctl
