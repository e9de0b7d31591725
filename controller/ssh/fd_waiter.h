// FdWaiter: waits for readiness of file descriptors owned by other libraries
// (libssh) and resumes the waiting coroutine on its own executor.
//
// Why not asio::posix::stream_descriptor::async_wait: Asio registers
// descriptors edge-triggered and does not check readiness before queueing a
// wait, so readiness that arrives while no wait is queued is lost and the
// waiter sleeps until its deadline. libssh reads from its socket on its own
// schedule, so that race is real. FdWaiter uses level-triggered, one-shot
// epoll registrations made at wait time: a descriptor that is already ready
// completes at once, and no readiness is ever lost.
//
// One thread runs epoll_wait and enforces deadlines; completions are posted to
// the executor associated with the handler (the host's strand).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

namespace clusterctl {

enum class FdWaitResult { kReady, kTimedOut, kError };

class FdWaiter {
 public:
  using Clock = std::chrono::steady_clock;

  FdWaiter();
  ~FdWaiter();
  FdWaiter(const FdWaiter&) = delete;
  FdWaiter& operator=(const FdWaiter&) = delete;

  // Completes with kReady when `fd` is readable (or writable, with
  // `want_write`), kTimedOut at `deadline`. REQUIRES: at most one wait per fd
  // at a time.
  template <class CompletionToken>
  auto AsyncWait(int fd, bool want_read, bool want_write, Clock::time_point deadline, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, void(FdWaitResult)>(
        [this, fd, want_read, want_write, deadline](auto handler) {
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          // The work guard tells the handler's executor (a thread pool) that an
          // operation is outstanding, so the pool does not run out of work and
          // shut down while a coroutine still waits here.
          auto work = std::make_shared<decltype(boost::asio::make_work_guard(
              boost::asio::get_associated_executor(*shared)))>(
              boost::asio::make_work_guard(boost::asio::get_associated_executor(*shared)));
          Register(fd, want_read, want_write, deadline, [shared, work](FdWaitResult result) {
            auto executor = boost::asio::get_associated_executor(*shared);
            boost::asio::post(executor, [shared, work, result]() mutable {
              (*shared)(result);
              work->reset();
            });
          });
        },
        token);
  }

 private:
  struct Waiter {
    std::function<void(FdWaitResult)> complete;
    Clock::time_point deadline;
  };

  void Register(int fd, bool want_read, bool want_write, Clock::time_point deadline,
                std::function<void(FdWaitResult)> complete);
  void Loop();
  void Wake();

  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::mutex mutex_;
  std::map<int, Waiter> waiters_;  // by fd
  Clock::time_point next_wakeup_ = Clock::time_point::max();  // when the loop wakes next
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace clusterctl
