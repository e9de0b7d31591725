// What a server says first: an SSH server's identification, or the words of
// something else on the port, reported as such (issue 32). The pure verdict
// on captured first words, then SshSession against loopback listeners.
#include "controller/ssh/ssh_identification.h"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <boost/asio/thread_pool.hpp>

#include "controller/remote/remote_runner.h"
#include "controller/ssh/ssh_session.h"

namespace clusterctl {
namespace {

using namespace std::chrono_literals;

// A loopback listener that, for each connection, writes `first` at once,
// then `reply` once the client has sent something, and keeps it open.
class Listener {
 public:
  Listener(std::string first, std::string reply) : first_(std::move(first)), reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    REQUIRE(::listen(fd_, 4) == 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~Listener() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    if (client_ >= 0) ::close(client_);
  }
  int port() const { return port_; }

 private:
  void Serve() {
    client_ = ::accept(fd_, nullptr, nullptr);
    if (client_ < 0) return;
    const timeval wait{5, 0};  // a client that never closes does not hang the test
    ::setsockopt(client_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    if (!first_.empty()) ::send(client_, first_.data(), first_.size(), MSG_NOSIGNAL);
    char buffer[256];
    if (::recv(client_, buffer, sizeof buffer, 0) > 0 && !reply_.empty()) {
      ::send(client_, reply_.data(), reply_.size(), MSG_NOSIGNAL);
    }
  }

  std::string first_, reply_;
  int fd_ = -1;
  int client_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// SshSession::Connect to the listener, with a step timeout of `timeout`.
Status ConnectTo(const Listener& listener, std::chrono::seconds timeout) {
  boost::asio::thread_pool pool(1);
  FdWaiter waiter;
  Status status;
  RunConcurrently(pool, 1, FanoutOptions{}, [&](size_t) -> Task<void> {
    SshSession session(waiter);
    SshEndpoint endpoint{"127.0.0.1", listener.port(), "root", "", timeout};
    status = co_await session.Connect(endpoint, std::chrono::steady_clock::now() + timeout * 3);
  });
  return status;
}

}  // namespace

TEST_CASE("first words: an SSH identification, or what else the server said, quoted printable and bounded") {
  CHECK_FALSE(NotAnSshServer("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n"));
  CHECK_FALSE(NotAnSshServer("SS"));  // the rest is on its way
  CHECK_FALSE(NotAnSshServer("Welcome to the bastion\r\nSSH-2.0-OpenSSH_9.2\r\n"));  // lines before it (RFC 4253)
  CHECK(NotAnSshServer("hello\n") == "not an SSH server (it said: 'hello')");
  CHECK(NotAnSshServer("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") ==
        "not an SSH server (it said: 'HTTP/1.1 400 Bad Request')");
  CHECK(NotAnSshServer("caf\xe9 \x1b[2J'\n") == "not an SSH server (it said: 'caf\\xe9 \\x1b[2J\\x27')");
  CHECK(NotAnSshServer(std::string(500, 'x')) == "not an SSH server (it said: '" + std::string(60, 'x') + "...')");
  CHECK(NotAnSshServer(std::string("\0\0\0\x14", 4)) == "not an SSH server (it said: '\\x00\\x00\\x00\\x14')");
}

TEST_CASE("a server that says 'hello' on the SSH port is not an SSH server, reported at once, not as a timeout") {
  Listener hello("hello\n", "");
  const auto start = std::chrono::steady_clock::now();
  const Status status = ConnectTo(hello, 5s);
  CHECK(status.code() == Status::Code::kUnavailable);
  CHECK(status.message() == "not an SSH server (it said: 'hello')");
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

TEST_CASE("a server that answers the client's identification with HTTP is not an SSH server") {
  Listener http("", "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  const Status status = ConnectTo(http, 5s);
  CHECK(status.code() == Status::Code::kUnavailable);
  CHECK(status.message() == "not an SSH server (it said: 'HTTP/1.1 400 Bad Request')");
}

TEST_CASE("a server that accepts and says nothing times out, and the message says it sent nothing") {
  Listener silent("", "");
  const auto start = std::chrono::steady_clock::now();
  const Status status = ConnectTo(silent, 1s);
  CHECK(std::chrono::steady_clock::now() - start < 1800ms);  // the wait for its first words is not added
  CHECK(status.code() == Status::Code::kTimeout);
  CHECK(status.message() == "SSH handshake timed out: the server accepted the connection but sent nothing");
}

}  // namespace clusterctl
