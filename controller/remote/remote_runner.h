// RemoteRunner: runs a per-host body on many hosts at once, each over its own
// agent connection, and collects one HostResult per host.
//
// Concurrency: a pool of threads (one per core) runs the hosts' coroutines; at
// most `forks` hosts are in flight; each host's coroutine runs on its own
// strand, so its SSH session is only ever touched by one thread at a time.
// One slow or dead host never holds up the others.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json.hpp>

#include "controller/remote/agent_binaries.h"
#include "controller/remote/host_connector.h"
#include "controller/remote/session_factory.h"
#include "controller/ssh/fd_waiter.h"
#include "controller/ssh/host_key_policy.h"
#include "inventory/model.h"

namespace clusterctl {

class JumpHosts;

struct FanoutOptions {
  size_t forks = 2000;  // enough that 1000 hosts never queue behind each other
  size_t threads = 0;   // 0: one per CPU core
};

struct HostResult {
  enum class State { kOk, kFailed, kUnreachable };
  const Host* host = nullptr;
  State state = State::kOk;
  std::string error;               // for kFailed / kUnreachable
  std::vector<std::string> notes;  // host keys accepted, agent installed
  nlohmann::json data;             // what the body produced
  std::chrono::milliseconds duration{0};
  bool contacted = true;  // false: nothing needed the host (a deploy with nothing to do, a host not started)

  void Fail(const Status& status);  // kUnreachable for transport errors, kFailed otherwise
};

const char* ToString(HostResult::State state);

using HostBody = std::function<Task<void>(AgentSession& agent, HostResult& result)>;

// Connects to every host through `sessions`, runs `body` with its agent,
// closes. Results are in the order of `hosts`; an exception in `body` fails
// its host with the exception's message.
std::vector<HostResult> RunOnHosts(SessionFactory& sessions, const std::vector<const Host*>& hosts,
                                   const HostBody& body);

class RemoteRunner final : public SessionFactory {
 public:
  using HostBody = clusterctl::HostBody;

  RemoteRunner(std::map<std::string, RecordedHostKey> known_keys, AgentBinaries agents, RemoteOptions remote,
               FanoutOptions fanout);
  ~RemoteRunner() override;

  // RunOnHosts over this runner's SSH sessions.
  std::vector<HostResult> Run(const std::vector<const Host*>& hosts, const HostBody& body) {
    return RunOnHosts(*this, hosts, body);
  }

  // SessionFactory, for callers that drive sessions themselves (the deploy).
  Task<OpenedSession> Open(const Host& host, const CancelToken* cancel) override;
  void ForEach(size_t count, const std::function<Task<void>(size_t)>& body) override;

  // Host keys accepted during the run (hosts by name, jump hosts as "jump:...").
  std::vector<std::pair<std::string, RecordedHostKey>> AcceptedHostKeys();
  // See HostKeyRegistry::OnAccepted. REQUIRES: called before any host runs.
  void OnHostKeyAccepted(HostKeyRegistry::AcceptedCallback callback) { host_keys_.OnAccepted(std::move(callback)); }
  std::vector<std::string> JumpHostNotes();

 private:
  // Declared first so it is destroyed last: the FdWaiter's thread may still
  // hold handlers bound to the pool's strands until it has been joined.
  boost::asio::thread_pool pool_;
  FdWaiter waiter_;
  HostKeyRegistry host_keys_;
  AgentBinaries agents_;
  RemoteOptions remote_;
  FanoutOptions fanout_;
  std::unique_ptr<JumpHosts> jump_hosts_;
  RemoteContext context_;
};

// Runs body(i) for i in [0, count) with at most `forks` at a time on `pool`,
// one strand per worker; returns when all are done. The pool must outlive
// every asynchronous service its coroutines waited on.
void RunConcurrently(boost::asio::thread_pool& pool, size_t count, const FanoutOptions& options,
                     const std::function<Task<void>(size_t)>& body);

size_t ThreadCount(const FanoutOptions& options);

// Raises the soft open-files limit to the hard limit (1000 hosts need 1000+ sockets).
void RaiseOpenFileLimit();

}  // namespace clusterctl
