// A raw HTTP client for the daemon's unit tests: bytes out, bytes in, so a
// test can send what no well-behaved client would (half a header, a huge
// body, a malformed request line) and see exactly what comes back.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "common/clock.h"

namespace clusterctl::testing {

struct RawClientOptions {
  const char* source = nullptr;  // the loopback address to connect from ("127.0.0.2"); any when null
  int receive_buffer = 0;        // SO_RCVBUF in bytes (a reader that holds little); the system's when 0
};

class RawClient {
 public:
  explicit RawClient(int port, RawClientOptions options = {}) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    if (options.receive_buffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &options.receive_buffer, sizeof options.receive_buffer);
    }
    if (options.source) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, options.source, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) Close();
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) Close();
  }
  ~RawClient() { Close(); }
  bool connected() const { return fd_ >= 0; }
  void Send(const std::string& bytes) {
    if (fd_ >= 0) (void)!::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  // What arrives until the server closes, `until` is seen, or `wait` passes.
  // `closed` says whether the server closed the connection.
  std::string Receive(std::chrono::milliseconds wait, const std::string& until = "", bool* closed = nullptr) {
    std::string in;
    const SystemClock clock;
    const auto deadline = clock.Monotonic() + wait;
    if (closed) *closed = false;
    while (fd_ >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.Monotonic());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buffer[65536];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        break;
      }
      in.append(buffer, static_cast<size_t>(n));
      if (!until.empty() && in.find(until) != std::string::npos) break;
    }
    return in;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A complete request: method, path, headers (each "Name: value"), body.
inline std::string Request(const std::string& method, const std::string& path, const std::string& headers = "",
                           const std::string& body = "") {
  std::string text = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n" + headers;
  if (!body.empty() || method == "POST") text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return text + "\r\n" + body;
}

// "HTTP/1.1 404 Not Found..." -> 404; 0 when there is no status line.
inline int StatusOf(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::stoi(response.substr(9, 3));
}

// The value of the first header `name` (as the server spells it), "" when absent.
inline std::string HeaderOf(const std::string& response, const std::string& name) {
  const size_t end = response.find("\r\n\r\n");
  const size_t at = response.find("\r\n" + name + ": ");
  if (at == std::string::npos || at > end) return "";
  const size_t value = at + 4 + name.size();
  return response.substr(value, response.find("\r\n", value) - value);
}

inline std::string BodyOf(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

}  // namespace clusterctl::testing
