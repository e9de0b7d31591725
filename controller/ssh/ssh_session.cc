#include "controller/ssh/ssh_session.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "controller/ssh/ssh_identification.h"

namespace clusterctl {
namespace {

namespace asio = boost::asio;

// How long a new connection waits for the server to speak first (an SSH
// server does at once; one that waits for the client gets the client's
// identification after this).
constexpr std::chrono::seconds kFirstWordsWait{2};

// Resolves synchronously: addresses are usually IP literals (no lookup), and
// a name lookup on a cluster's own DNS answers in microseconds.
Result<sockaddr_storage> Resolve(const std::string& address, int port, socklen_t& length) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) return Status::Unavailable("cannot resolve " + address + ": " + ::gai_strerror(rc));
  sockaddr_storage storage{};
  std::memcpy(&storage, found->ai_addr, found->ai_addrlen);
  length = found->ai_addrlen;
  ::freeaddrinfo(found);
  return storage;
}

}  // namespace

bool IsRetryableHandshakeError(const std::string& message) {
  for (const char* marker : {"Connection closed", "disconnected", "Connection reset", "reset by peer",
                             "Broken pipe", "kex_exchange_identification", "banner"}) {
    if (message.find(marker) != std::string::npos) return true;
  }
  return false;
}

SshSession::SshSession(FdWaiter& waiter) : waiter_(waiter), session_(ssh_new()) {}

SshSession::~SshSession() {
  if (session_) {
    ssh_disconnect(session_);
    ssh_free(session_);
  }
}

std::string SshSession::LastError() const { return ssh_get_error(session_); }

Task<Status> SshSession::WaitForIo(Deadline deadline) {
  int fd = ssh_get_fd(session_);
  if (fd < 0) co_return Status::Unavailable("connection lost");
  bool want_write = (ssh_get_poll_flags(session_) & SSH_WRITE_PENDING) != 0;
  FdWaitResult result = co_await waiter_.AsyncWait(fd, true, want_write, deadline, asio::use_awaitable);
  if (result == FdWaitResult::kTimedOut) co_return Status::Timeout("no answer");
  if (result == FdWaitResult::kError) co_return Status::Unavailable("connection lost");
  co_return Status::Ok();
}

void SshSession::SendKeepalive() { ssh_send_ignore(session_, ""); }

Task<Status> SshSession::Connect(const SshEndpoint& endpoint, Deadline deadline) {
  socklen_t length = 0;
  auto address = Resolve(endpoint.address, endpoint.port, length);
  if (!address.ok()) co_return address.status();
  int fd = ::socket(address->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) co_return Status::IoError(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A peer that stops acknowledging (link cut, node frozen) errors the socket.
  unsigned int user_timeout_ms = static_cast<unsigned int>(endpoint.io_timeout.count() * 1000);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&*address), length) != 0 && errno != EINPROGRESS) {
    int error = errno;
    ::close(fd);
    co_return Status::Unavailable(std::string("connect: ") + std::strerror(error));
  }
  FdWaitResult waited = co_await waiter_.AsyncWait(
      fd, false, true, std::min(deadline, clock_.Monotonic() + endpoint.io_timeout), asio::use_awaitable);
  if (waited != FdWaitResult::kReady) {
    ::close(fd);
    co_return Status::Timeout("connect timed out");
  }
  int error = 0;
  socklen_t error_length = sizeof error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_length);
  if (error != 0) {
    ::close(fd);
    co_return Status::Unavailable(std::string("connect: ") + std::strerror(error));
  }
  co_return co_await ConnectOverSocket(fd, endpoint, deadline);
}

Task<Status> SshSession::ConnectOverSocket(int fd, const SshEndpoint& endpoint, Deadline deadline) {
  socket_ = fd;
  step_timeout_ = endpoint.io_timeout;
  ssh_options_set(session_, SSH_OPTIONS_FD, &socket_);
  co_return co_await Handshake(endpoint, deadline);
}

Task<Status> SshSession::Handshake(const SshEndpoint& endpoint, Deadline deadline) {
  int port = endpoint.port;
  int verbosity = SSH_LOG_NOLOG;
  ssh_options_set(session_, SSH_OPTIONS_HOST, endpoint.address.c_str());
  ssh_options_set(session_, SSH_OPTIONS_PORT, &port);
  ssh_options_set(session_, SSH_OPTIONS_USER, endpoint.user.c_str());
  ssh_options_set(session_, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
  ssh_set_blocking(session_, 0);
  // libssh reads what the server says in its first ssh_connect() when it is
  // there already: a server that speaks first is given a moment to do so.
  // That moment is part of the first step's time, not added to it.
  const Deadline first_step = StepDeadline(deadline);
  co_await waiter_.AsyncWait(socket_, true, false, std::min(first_step, clock_.Monotonic() + kFirstWordsWait),
                             asio::use_awaitable);
  bool heard = false;  // the server's first words were judged
  for (bool first = true;; first = false) {
    if (!heard) {
      Status words = JudgeFirstWords(heard);
      if (!words.ok() && first) ::close(socket_);  // libssh takes the socket over in ssh_connect() only
      if (!words.ok()) co_return words;
    }
    int rc = ssh_connect(session_);
    if (rc == SSH_OK) co_return Status::Ok();
    if (rc == SSH_ERROR) co_return Status::Unavailable(LastError());
    // Until the server says anything, it has made no progress since the start.
    Status waited = co_await WaitForIo(heard ? StepDeadline(deadline) : first_step);
    if (!waited.ok()) {
      const bool silent = !heard && ssh_get_serverbanner(session_) == nullptr;
      co_return Status::Timeout(silent ? "SSH handshake timed out: the server accepted the connection but sent nothing"
                                       : "SSH handshake timed out");
    }
  }
}

Status SshSession::JudgeFirstWords(bool& heard) {
  if (ssh_get_serverbanner(session_) != nullptr) {  // libssh has read them: an SSH server
    heard = true;
    return Status::Ok();
  }
  char first[1024];
  const ssize_t n = ::recv(socket_, first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0) return Status::Ok();  // nothing yet
  heard = true;                    // (or closed, which libssh reports)
  if (n == 0) return Status::Ok();
  std::optional<std::string> not_ssh = NotAnSshServer(std::string_view(first, static_cast<size_t>(n)));
  return not_ssh ? Status::Unavailable(*not_ssh) : Status::Ok();
}

Result<HostKey> SshSession::ServerHostKey() {
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(session_, &key) != SSH_OK) return Status::Unavailable(LastError());
  unsigned char* hash = nullptr;
  size_t hash_length = 0;
  HostKey out;
  out.type = ssh_key_type_to_char(ssh_key_type(key));
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hash_length) == SSH_OK) {
    char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hash_length);
    out.sha256 = text ? text : "";
    ssh_string_free_char(text);
    ssh_clean_pubkey_hash(&hash);
  }
  ssh_key_free(key);
  if (out.sha256.empty()) return Status::Internal("cannot fingerprint the host key");
  return out;
}

KnownHostsVerdict SshSession::CheckUserKnownHosts() {
  switch (ssh_session_is_known_server(session_)) {
    case SSH_KNOWN_HOSTS_OK: return KnownHostsVerdict::kMatch;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER: return KnownHostsVerdict::kChanged;
    case SSH_KNOWN_HOSTS_NOT_FOUND:
    case SSH_KNOWN_HOSTS_UNKNOWN: return KnownHostsVerdict::kUnknown;
    default: return KnownHostsVerdict::kError;
  }
}

Task<Status> SshSession::Authenticate(const SshEndpoint& endpoint, Deadline deadline) {
  auto await_auth = [&](auto call) -> Task<int> {
    while (true) {
      int rc = call();
      if (rc != SSH_AUTH_AGAIN) co_return rc;
      Status waited = co_await WaitForIo(StepDeadline(deadline));
      if (!waited.ok()) co_return SSH_AUTH_ERROR;
    }
  };
  if (!endpoint.key_file.empty()) {
    ssh_key key = nullptr;
    int rc = ssh_pki_import_privkey_file(endpoint.key_file.c_str(), nullptr, nullptr, nullptr, &key);
    if (rc != SSH_OK) {
      co_return Status::PermissionDenied("cannot load key " + endpoint.key_file +
                                         " (encrypted keys must be loaded into ssh-agent)");
    }
    int auth = co_await await_auth([&] { return ssh_userauth_publickey(session_, nullptr, key); });
    ssh_key_free(key);
    if (auth == SSH_AUTH_SUCCESS) co_return Status::Ok();
    if (clock_.Monotonic() >= deadline) co_return Status::Timeout("authentication timed out");
    co_return Status::PermissionDenied("the server refused key " + endpoint.key_file + " for user " + endpoint.user);
  }
  int auth = co_await await_auth([&] { return ssh_userauth_publickey_auto(session_, nullptr, nullptr); });
  if (auth == SSH_AUTH_SUCCESS) co_return Status::Ok();
  if (clock_.Monotonic() >= deadline) co_return Status::Timeout("authentication timed out");
  co_return Status::PermissionDenied("no key from ssh-agent or ~/.ssh was accepted for user " + endpoint.user);
}

Task<Result<std::unique_ptr<SshChannel>>> SshSession::Exec(const std::string& command, Deadline deadline) {
  ssh_channel channel = ssh_channel_new(session_);
  if (!channel) co_return Status::Internal("cannot allocate a channel");
  auto owned = std::make_unique<SshChannel>(*this, channel);
  while (true) {
    int rc = ssh_channel_open_session(channel);
    if (rc == SSH_OK) break;
    if (rc == SSH_ERROR) co_return Status::Unavailable("opening a channel: " + LastError());
    Status waited = co_await WaitForIo(StepDeadline(deadline));
    if (!waited.ok()) co_return waited;
  }
  while (true) {
    int rc = ssh_channel_request_exec(channel, command.c_str());
    if (rc == SSH_OK) break;
    if (rc == SSH_ERROR) co_return Status::Unavailable("starting a command: " + LastError());
    Status waited = co_await WaitForIo(StepDeadline(deadline));
    if (!waited.ok()) co_return waited;
  }
  co_return owned;
}

Task<Result<std::unique_ptr<SshChannel>>> SshSession::OpenTunnel(const std::string& host, int port,
                                                                 Deadline deadline) {
  ssh_channel channel = ssh_channel_new(session_);
  if (!channel) co_return Status::Internal("cannot allocate a channel");
  auto owned = std::make_unique<SshChannel>(*this, channel);
  while (true) {
    int rc = ssh_channel_open_forward(channel, host.c_str(), port, "127.0.0.1", 0);
    if (rc == SSH_OK) break;
    if (rc == SSH_ERROR) co_return Status::Unavailable("jump host cannot reach " + host + ": " + LastError());
    Status waited = co_await WaitForIo(deadline);
    if (!waited.ok()) co_return waited;
  }
  co_return owned;
}

SshChannel::~SshChannel() {
  if (channel_) {
    if (ssh_channel_is_open(channel_)) ssh_channel_close(channel_);
    ssh_channel_free(channel_);
  }
}

Status SshChannel::ReadAvailable(std::string& out, bool& eof) {
  char buffer[32768];
  while (true) {
    int n = ssh_channel_read_nonblocking(channel_, buffer, sizeof buffer, 0);
    if (n == SSH_ERROR) return Status::Unavailable("connection lost: " + session_.LastError());
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
      continue;
    }
    eof = ssh_channel_is_eof(channel_) != 0;
    return Status::Ok();
  }
}

Task<Status> SshChannel::Read(std::string& out, std::string* err, bool& eof, Deadline deadline) {
  char buffer[32768];
  while (true) {
    bool got = false;
    for (int is_stderr : {0, 1}) {
      while (true) {
        int n = ssh_channel_read_nonblocking(channel_, buffer, sizeof buffer, is_stderr);
        if (n == SSH_ERROR) co_return Status::Unavailable("connection lost: " + session_.LastError());
        if (n <= 0) break;
        got = true;
        std::string& sink = is_stderr ? (err ? *err : out) : out;
        if (is_stderr && !err) continue;  // stderr not wanted: drained and dropped
        sink.append(buffer, static_cast<size_t>(n));
      }
    }
    eof = ssh_channel_is_eof(channel_) != 0;
    if (got || eof) co_return Status::Ok();
    if (ssh_channel_is_closed(channel_)) {
      eof = true;
      co_return Status::Ok();
    }
    // Reading one stream makes libssh take every packet the socket holds,
    // the other stream's included: the stderr read above can leave stdout
    // bytes in libssh's buffer with nothing left on the socket to wake the
    // wait below (seen: a reply held until the next keepalive, 5 s, on one
    // deploy step in ten). Buffered bytes are read now, not waited for.
    if (ssh_channel_poll(channel_, 0) > 0 || ssh_channel_poll(channel_, 1) > 0) continue;
    Status waited = co_await session_.WaitForIo(deadline);
    if (!waited.ok()) co_return waited;
  }
}

Task<Status> SshChannel::Write(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    uint32_t chunk = static_cast<uint32_t>(std::min<size_t>(data.size(), 1u << 20));
    int n = ssh_channel_write(channel_, data.data(), chunk);
    if (n == SSH_ERROR) co_return Status::Unavailable("connection lost: " + session_.LastError());
    data.remove_prefix(static_cast<size_t>(n));
    if (n == 0 || (ssh_get_poll_flags(session_.raw()) & SSH_WRITE_PENDING)) {
      Status waited = co_await session_.WaitForIo(deadline);
      if (!waited.ok()) co_return waited;
      // Let libssh flush its output and take window adjustments.
      ssh_channel_poll(channel_, 0);
    }
  }
  co_return Status::Ok();
}

void SshChannel::SendEof() { ssh_channel_send_eof(channel_); }

std::optional<int> SshChannel::ExitStatus() {
  int status = ssh_channel_get_exit_status(channel_);
  if (status < 0) return std::nullopt;
  return status;
}

}  // namespace clusterctl
