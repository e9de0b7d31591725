// SshSession / SshChannel: libssh in non-blocking mode, driven by coroutines.
//
// Every libssh call that would block returns SSH_AGAIN; the coroutine then
// waits (FdWaiter) for the socket to become readable, or writable when libssh
// has output pending, and calls again. A session and its channels belong to
// one strand: REQUIRES that all calls on a session come from the coroutine
// that owns it.
//
// This is the only code that calls libssh's session and channel API.
#pragma once

#include <libssh/libssh.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without including it

#include <boost/asio/awaitable.hpp>

#include "common/clock.h"
#include "common/status.h"
#include "controller/ssh/fd_waiter.h"

namespace clusterctl {

using Deadline = std::chrono::steady_clock::time_point;
template <class T>
using Task = boost::asio::awaitable<T>;

struct SshEndpoint {
  std::string address;  // IP or DNS name (also the known_hosts lookup key)
  int port = 22;
  std::string user;
  std::string key_file;  // empty: ssh-agent, then ~/.ssh default identities
  std::chrono::seconds io_timeout{10};  // TCP_USER_TIMEOUT: unacknowledged data this long = dead peer
};

struct HostKey {
  std::string type;    // "ssh-ed25519"
  std::string sha256;  // "SHA256:base64..." as OpenSSH prints it
};

enum class KnownHostsVerdict { kMatch, kChanged, kUnknown, kError };

class SshChannel;

class SshSession {
 public:
  explicit SshSession(FdWaiter& waiter);
  ~SshSession();
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  // TCP connect and SSH key exchange. Unavailable (refused, unreachable,
  // not an SSH server, closed during key exchange), Timeout, or Ok.
  Task<Status> Connect(const SshEndpoint& endpoint, Deadline deadline);
  // The same over an already-connected socket (a tunnel through a jump host);
  // the session takes ownership of `fd`.
  Task<Status> ConnectOverSocket(int fd, const SshEndpoint& endpoint, Deadline deadline);

  Result<HostKey> ServerHostKey();
  // The user's ~/.ssh/known_hosts verdict for this server's key.
  KnownHostsVerdict CheckUserKnownHosts();

  // Public-key authentication (key file, or agent then default identities).
  Task<Status> Authenticate(const SshEndpoint& endpoint, Deadline deadline);

  // A session channel running `command` (the remote user's shell interprets it).
  Task<Result<std::unique_ptr<SshChannel>>> Exec(const std::string& command, Deadline deadline);
  // A direct-tcpip channel to host:port as seen from the server (jump hosts).
  Task<Result<std::unique_ptr<SshChannel>>> OpenTunnel(const std::string& host, int port, Deadline deadline);

  // Waits until libssh can make progress: readable, or writable when output is pending.
  Task<Status> WaitForIo(Deadline deadline);
  // An SSH_MSG_IGNORE, so a dead peer shows up as a TCP timeout while we wait.
  void SendKeepalive();
  std::string LastError() const;
  ssh_session raw() { return session_; }

 private:
  Task<Status> Handshake(const SshEndpoint& endpoint, Deadline deadline);
  // Peeks at what the server sent before libssh reads it: Unavailable when
  // it is not an SSH server (ssh_identification.h). Sets `heard` once the
  // server said anything (or closed).
  Status JudgeFirstWords(bool& heard);
  // Set-up steps (handshake, authentication, opening channels) fail when the
  // server makes no progress for `step_timeout_`, or at the caller's overall
  // deadline: a busy server that answers slowly is not a dead one.
  Deadline StepDeadline(Deadline cap) const {
    return std::min(cap, clock_.Monotonic() + step_timeout_);
  }

  SystemClock clock_;  // libssh's waits are on the machine's own time
  FdWaiter& waiter_;
  ssh_session session_;
  int socket_ = -1;  // owned by libssh once handed over
  std::chrono::seconds step_timeout_{10};
};

class SshChannel {
 public:
  SshChannel(SshSession& session, ssh_channel channel) : session_(session), channel_(channel) {}
  ~SshChannel();
  SshChannel(const SshChannel&) = delete;
  SshChannel& operator=(const SshChannel&) = delete;

  // Appends what arrives on stdout/stderr; waits up to `deadline` when nothing
  // has. Returns Ok with `eof` set once the remote closed its output.
  Task<Status> Read(std::string& out, std::string* err, bool& eof, Deadline deadline);
  // Reads without waiting (for pumps); false once the channel is at EOF.
  Status ReadAvailable(std::string& out, bool& eof);
  Task<Status> Write(std::string_view data, Deadline deadline);
  void SendEof();
  // The remote command's exit status, once the channel reported it.
  std::optional<int> ExitStatus();
  ssh_channel raw() { return channel_; }

 private:
  SshSession& session_;
  ssh_channel channel_;
};

// Whether a failure during connection set-up is worth retrying: sshd's
// MaxStartups drops connections before or during key exchange
// ("Connection closed by remote host", resets), which clears up quickly.
bool IsRetryableHandshakeError(const std::string& message);

}  // namespace clusterctl
