#include "controller/remote/jump_hosts.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>

#include "common/clock.h"

namespace clusterctl {

// Tunnel deadlines are on the machine's own time.
const SystemClock kMachineClock;

namespace asio = boost::asio;

// The relay thread of one bastion. All libssh calls on the bastion session
// happen on this thread.
class JumpRelay {
 public:
  using Callback = std::function<void(Result<int>)>;

  JumpRelay(const JumpHost& jump, const Host& first_user, HostKeyRegistry& host_keys)
      : jump_(jump), policy_(first_user.connection.host_key_policy), host_keys_(host_keys) {
    endpoint_.address = jump.host;
    endpoint_.port = jump.port;
    endpoint_.user = jump.user.empty() ? first_user.connection.user : jump.user;
    endpoint_.key_file = first_user.connection.key_file;
    timeout_ = std::chrono::seconds(first_user.connection.connect_timeout_s);
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    thread_ = std::thread([this] { Run(); });
  }

  ~JumpRelay() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    Wake();
    thread_.join();
    for (auto& request : requests_) request.done(Status::Unavailable("shutting down"));
    ::close(wake_fd_);
  }

  // `done` gets the socket, or why not; by `deadline` at the latest.
  void Request(std::string address, int port, Deadline deadline, Callback done) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back({std::move(address), port, deadline, std::move(done)});
    }
    Wake();
  }

  std::vector<std::string> Notes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return notes_;
  }

 private:
  struct PendingRequest {
    std::string address;
    int port;
    Deadline deadline;
    Callback done;
  };
  // Bytes held for one direction of one tunnel before the relay stops
  // reading that direction (the other side is slow): bounded memory.
  static constexpr size_t kMaxBuffered = 1u << 20;
  struct Tunnel {
    ssh_channel channel = nullptr;
    int fd = -1;               // our end of the socketpair
    std::string to_socket;     // from the channel, not yet written to the socket
    std::string to_channel;    // from the socket, not yet written to the channel
    bool socket_closed = false;
    PendingRequest request;    // while opening
    bool open = false;
  };

  void Wake() {
    uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }

  // Connects and authenticates the bastion in blocking mode; Ok or why not.
  Status Setup() {
    session_ = ssh_new();
    int port = endpoint_.port;
    long timeout = static_cast<long>(timeout_.count());
    ssh_options_set(session_, SSH_OPTIONS_HOST, endpoint_.address.c_str());
    ssh_options_set(session_, SSH_OPTIONS_PORT, &port);
    ssh_options_set(session_, SSH_OPTIONS_USER, endpoint_.user.c_str());
    ssh_options_set(session_, SSH_OPTIONS_TIMEOUT, &timeout);
    if (ssh_connect(session_) != SSH_OK) return Status::Unavailable("jump host " + jump_.ToString() + ": " + ssh_get_error(session_));
    ssh_key key = nullptr;
    if (ssh_get_server_publickey(session_, &key) != SSH_OK) return Status::Unavailable(ssh_get_error(session_));
    HostKey presented;
    presented.type = ssh_key_type_to_char(ssh_key_type(key));
    unsigned char* hash = nullptr;
    size_t length = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) == SSH_OK) {
      char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
      presented.sha256 = text ? text : "";
      ssh_string_free_char(text);
      ssh_clean_pubkey_hash(&hash);
    }
    ssh_key_free(key);
    const std::string name = JumpHosts::KeyName(jump_);
    KnownHostsVerdict known = KnownHostsVerdict::kUnknown;
    switch (ssh_session_is_known_server(session_)) {
      case SSH_KNOWN_HOSTS_OK: known = KnownHostsVerdict::kMatch; break;
      case SSH_KNOWN_HOSTS_CHANGED:
      case SSH_KNOWN_HOSTS_OTHER: known = KnownHostsVerdict::kChanged; break;
      default: break;
    }
    HostKeyDecision decision = DecideHostKey("jump host " + jump_.ToString(), policy_, host_keys_.Lookup(name), presented, known);
    if (decision.kind == HostKeyDecision::Kind::kRefuse) return Status::PermissionDenied(decision.message);
    if (decision.kind == HostKeyDecision::Kind::kAcceptAndRecord) {
      if (Status recorded = host_keys_.RecordAccepted(name, presented); !recorded.ok()) return recorded;
      std::lock_guard<std::mutex> lock(mutex_);
      notes_.push_back(decision.message);
    }
    int auth = SSH_AUTH_DENIED;
    if (!endpoint_.key_file.empty()) {
      ssh_key private_key = nullptr;
      if (ssh_pki_import_privkey_file(endpoint_.key_file.c_str(), nullptr, nullptr, nullptr, &private_key) == SSH_OK) {
        auth = ssh_userauth_publickey(session_, nullptr, private_key);
        ssh_key_free(private_key);
      }
    } else {
      auth = ssh_userauth_publickey_auto(session_, nullptr, nullptr);
    }
    if (auth != SSH_AUTH_SUCCESS) {
      return Status::PermissionDenied("jump host " + jump_.ToString() + " refused the key for " + endpoint_.user);
    }
    ssh_set_blocking(session_, 0);
    return Status::Ok();
  }

  void FailAll(const Status& status) {
    std::deque<PendingRequest> requests;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests.swap(requests_);
    }
    for (auto& r : requests) r.done(status);
    for (auto& t : tunnels_) {
      if (!t.open && t.request.done) t.request.done(status);
    }
  }

  void StartTunnels() {
    std::deque<PendingRequest> requests;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests.swap(requests_);
    }
    for (auto& r : requests) {
      Tunnel t;
      t.channel = ssh_channel_new(session_);
      t.request = std::move(r);
      tunnels_.push_back(std::move(t));
    }
  }

  // One pass over every tunnel: finish opening, move bytes both ways.
  void Pump() {
    char buffer[32768];
    for (auto& t : tunnels_) {
      if (!t.channel) continue;
      if (!t.open) {
        int rc = ssh_channel_open_forward(t.channel, t.request.address.c_str(), t.request.port, "127.0.0.1", 0);
        if (rc == SSH_AGAIN && kMachineClock.Monotonic() >= t.request.deadline) {
          t.request.done(Status::Timeout("jump host " + jump_.ToString() + " did not open a tunnel to " +
                                         t.request.address + ":" + std::to_string(t.request.port) + " in time"));
          ssh_channel_free(t.channel);
          t.channel = nullptr;
          continue;
        }
        if (rc == SSH_AGAIN) continue;
        if (rc != SSH_OK) {
          t.request.done(Status::Unavailable("jump host " + jump_.ToString() + " cannot reach " + t.request.address +
                                             ":" + std::to_string(t.request.port) + ": " + ssh_get_error(session_)));
          ssh_channel_free(t.channel);
          t.channel = nullptr;
          continue;
        }
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
          t.request.done(Status::IoError(std::string("socketpair: ") + std::strerror(errno)));
          ssh_channel_free(t.channel);
          t.channel = nullptr;
          continue;
        }
        ::fcntl(pair[0], F_SETFL, O_NONBLOCK);
        ::fcntl(pair[1], F_SETFL, O_NONBLOCK);
        t.fd = pair[0];
        t.open = true;
        t.request.done(pair[1]);
        t.request.done = nullptr;
      }
      // channel -> socket (what the socket has not taken yet stays in the
      // channel's window, so a slow reader slows the sender, not our memory)
      while (t.to_socket.size() < kMaxBuffered) {
        int n = ssh_channel_read_nonblocking(t.channel, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        t.to_socket.append(buffer, static_cast<size_t>(n));
      }
      while (!t.to_socket.empty()) {
        ssize_t w = ::write(t.fd, t.to_socket.data(), t.to_socket.size());
        if (w <= 0) break;
        t.to_socket.erase(0, static_cast<size_t>(w));
      }
      // socket -> channel
      while (!t.socket_closed && t.to_channel.size() < kMaxBuffered) {
        ssize_t r = ::read(t.fd, buffer, sizeof buffer);
        if (r > 0) {
          t.to_channel.append(buffer, static_cast<size_t>(r));
        } else {
          if (r == 0) t.socket_closed = true;
          break;
        }
      }
      if (!t.to_channel.empty()) {
        int w = ssh_channel_write(t.channel, t.to_channel.data(), static_cast<uint32_t>(t.to_channel.size()));
        if (w > 0) t.to_channel.erase(0, static_cast<size_t>(w));
      }
      bool channel_done = ssh_channel_is_eof(t.channel) || ssh_channel_is_closed(t.channel);
      if ((t.socket_closed && t.to_channel.empty()) || (channel_done && t.to_socket.empty())) {
        ::close(t.fd);
        ssh_channel_close(t.channel);
        ssh_channel_free(t.channel);
        t.channel = nullptr;
        t.fd = -1;
      }
    }
    tunnels_.erase(std::remove_if(tunnels_.begin(), tunnels_.end(), [](const Tunnel& t) { return !t.channel; }),
                   tunnels_.end());
  }

  void Run() {
    Status setup = Status::Ok();
    bool connected = false;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) break;
      }
      if (!connected) {
        bool have_requests;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          have_requests = !requests_.empty();
        }
        if (have_requests) {
          setup = Setup();
          connected = setup.ok();
          if (!connected) {
            FailAll(setup);
            // A failed bastion stays failed for this run: every host behind it gets the same reason.
            failed_ = setup;
          }
        }
      }
      if (!failed_.ok()) {
        FailAll(failed_);
      } else if (connected) {
        StartTunnels();
        Pump();
      }
      std::vector<pollfd> fds;
      fds.push_back({wake_fd_, POLLIN, 0});
      if (connected) {
        short events = POLLIN;
        if (ssh_get_poll_flags(session_) & SSH_WRITE_PENDING) events |= POLLOUT;
        fds.push_back({ssh_get_fd(session_), events, 0});
        for (const auto& t : tunnels_) {
          if (t.fd >= 0) fds.push_back({t.fd, static_cast<short>(POLLIN | (t.to_socket.empty() ? 0 : POLLOUT)), 0});
        }
      }
      ::poll(fds.data(), fds.size(), 50);
      uint64_t value;
      (void)!::read(wake_fd_, &value, sizeof value);
    }
    for (auto& t : tunnels_) {
      if (t.fd >= 0) ::close(t.fd);
      if (t.channel) ssh_channel_free(t.channel);
    }
    if (session_) {
      ssh_disconnect(session_);
      ssh_free(session_);
    }
  }

  JumpHost jump_;
  HostKeyPolicy policy_;
  HostKeyRegistry& host_keys_;
  SshEndpoint endpoint_;
  std::chrono::seconds timeout_;
  ssh_session session_ = nullptr;
  int wake_fd_;
  std::mutex mutex_;
  std::deque<PendingRequest> requests_;
  std::vector<std::string> notes_;
  bool stopping_ = false;
  Status failed_;
  std::vector<Tunnel> tunnels_;  // relay thread only
  std::thread thread_;
};

JumpHosts::JumpHosts(HostKeyRegistry& host_keys) : host_keys_(host_keys) {}

JumpHosts::~JumpHosts() = default;

JumpRelay& JumpHosts::RelayFor(const JumpHost& jump, const Host& first_user) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& relay = relays_[jump.ToString()];
  if (!relay) relay = std::make_unique<JumpRelay>(jump, first_user, host_keys_);
  return *relay;
}

Task<Result<int>> JumpHosts::OpenTunnel(const JumpHost& jump, const Host& target, Deadline deadline) {
  JumpRelay& relay = RelayFor(jump, target);
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(Result<int>)>(
      [&relay, &target, deadline](auto handler) {
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        auto work = std::make_shared<decltype(asio::make_work_guard(asio::get_associated_executor(*shared)))>(
            asio::make_work_guard(asio::get_associated_executor(*shared)));
        relay.Request(target.address, target.connection.port, deadline, [shared, work](Result<int> result) {
          auto executor = asio::get_associated_executor(*shared);
          asio::post(executor, [shared, work, result]() mutable {
            (*shared)(std::move(result));
            work->reset();
          });
        });
      },
      asio::use_awaitable);
}

std::vector<std::string> JumpHosts::Notes() {
  std::vector<std::string> notes;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [name, relay] : relays_) {
    for (auto& note : relay->Notes()) notes.push_back(note);
  }
  return notes;
}

}  // namespace clusterctl
