#include "controller/remote/remote_runner.h"

#include <sys/resource.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include "common/clock.h"
#include "controller/remote/jump_hosts.h"

namespace clusterctl {

// Transport deadlines and a host's duration are on the machine's own time.
const SystemClock kMachineClock;

namespace asio = boost::asio;

const char* ToString(HostResult::State state) {
  switch (state) {
    case HostResult::State::kOk: return "ok";
    case HostResult::State::kFailed: return "failed";
    case HostResult::State::kUnreachable: return "unreachable";
  }
  return "?";
}

void HostResult::Fail(const Status& status) {
  state = IsTransportFailure(status) ? State::kUnreachable : State::kFailed;
  error = status.message();
}

void RaiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

size_t ThreadCount(const FanoutOptions& options) {
  return options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

void RunConcurrently(asio::thread_pool& pool, size_t count, const FanoutOptions& options,
                     const std::function<Task<void>(size_t)>& body) {
  if (count == 0) return;
  std::atomic<size_t> next{0};
  const size_t workers = std::min(count, std::max<size_t>(1, options.forks));
  std::mutex mutex;
  std::condition_variable all_done;
  size_t running = workers;
  for (size_t w = 0; w < workers; ++w) {
    asio::co_spawn(
        asio::make_strand(pool),
        [&]() -> Task<void> {
          for (size_t i = next++; i < count; i = next++) {
            // One item's escaping exception must not end this worker's loop.
            try {
              co_await body(i);
            } catch (const std::exception&) {
            }
          }
        },
        [&](std::exception_ptr) {
          std::lock_guard<std::mutex> lock(mutex);
          if (--running == 0) all_done.notify_all();
        });
  }
  std::unique_lock<std::mutex> lock(mutex);
  all_done.wait(lock, [&] { return running == 0; });
}

RemoteRunner::RemoteRunner(std::map<std::string, RecordedHostKey> known_keys, AgentBinaries agents,
                           RemoteOptions remote, FanoutOptions fanout)
    : pool_(ThreadCount(fanout)),
      host_keys_(std::move(known_keys)),
      agents_(std::move(agents)),
      remote_(std::move(remote)),
      fanout_(fanout),
      jump_hosts_(std::make_unique<JumpHosts>(host_keys_)),
      context_{waiter_, host_keys_, agents_, remote_, jump_hosts_.get()} {
  RaiseOpenFileLimit();
}

void RemoteRunner::ForEach(size_t count, const std::function<Task<void>(size_t)>& body) {
  RunConcurrently(pool_, count, fanout_, body);
}

RemoteRunner::~RemoteRunner() = default;

Task<OpenedSession> RemoteRunner::Open(const Host& host, const CancelToken* cancel) {
  HostConnection connection = co_await ConnectHost(host, context_, cancel);
  OpenedSession opened;
  opened.notes = std::move(connection.notes);
  opened.status = connection.status;
  opened.unreachable = connection.unreachable;
  if (connection.agent) {
    agent_protocol::Hello hello = connection.agent->hello();
    opened.session = std::make_unique<AgentSession>(std::move(connection.agent), std::move(hello));
  }
  co_return opened;
}

std::vector<HostResult> RunOnHosts(SessionFactory& sessions, const std::vector<const Host*>& hosts,
                                   const HostBody& body) {
  std::vector<HostResult> results(hosts.size());
  sessions.ForEach(hosts.size(), [&](size_t i) -> Task<void> {
    HostResult& result = results[i];
    result.host = hosts[i];
    const auto start = kMachineClock.Monotonic();
    try {
      OpenedSession opened = co_await sessions.Open(*hosts[i], nullptr);
      result.notes = opened.notes;
      if (!opened.session) {
        result.state = opened.unreachable ? HostResult::State::kUnreachable : HostResult::State::kFailed;
        result.error = opened.status.message();
      } else {
        co_await body(*opened.session, result);
        co_await opened.session->Close(kMachineClock.Monotonic() + std::chrono::seconds(5));
      }
    } catch (const std::exception& e) {
      result.state = HostResult::State::kFailed;
      result.error = std::string("internal error: ") + e.what();
    }
    result.duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(kMachineClock.Monotonic() - start);
  });
  return results;
}

std::vector<std::pair<std::string, RecordedHostKey>> RemoteRunner::AcceptedHostKeys() {
  return host_keys_.Accepted();
}

std::vector<std::string> RemoteRunner::JumpHostNotes() { return jump_hosts_->Notes(); }

}  // namespace clusterctl
