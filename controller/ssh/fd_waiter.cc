#include "controller/ssh/fd_waiter.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <vector>

#include "common/clock.h"

namespace clusterctl {

// Deadlines of waits are on the machine's own time.
const SystemClock kMachineClock;

FdWaiter::FdWaiter() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  thread_ = std::thread([this] { Loop(); });
}

FdWaiter::~FdWaiter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  Wake();
  thread_.join();
  // Waits still pending complete as errors so no coroutine is left hanging.
  for (auto& [fd, waiter] : waiters_) waiter.complete(FdWaitResult::kError);
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

void FdWaiter::Wake() {
  uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

void FdWaiter::Register(int fd, bool want_read, bool want_write, Clock::time_point deadline,
                        std::function<void(FdWaitResult)> complete) {
  epoll_event ev{};
  ev.events = EPOLLONESHOT | (want_read ? EPOLLIN | EPOLLRDHUP : 0u) | (want_write ? EPOLLOUT : 0u);
  ev.data.fd = fd;
  bool earlier_deadline;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    earlier_deadline = deadline < next_wakeup_;
    waiters_[fd] = Waiter{std::move(complete), deadline};
    // MOD re-arms an fd already known to epoll; ADD registers a new one. Level-
    // triggered: an fd that is ready now reports at once.
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0 && ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      auto failed = std::move(waiters_[fd].complete);
      waiters_.erase(fd);
      failed(FdWaitResult::kError);
      return;
    }
  }
  if (earlier_deadline) Wake();  // the loop recomputes its timeout for the new deadline
}

void FdWaiter::Loop() {
  std::vector<epoll_event> events(256);
  while (true) {
    int timeout_ms = 1000;
    std::vector<std::function<void(FdWaitResult)>> expired;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      const auto now = kMachineClock.Monotonic();
      for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (it->second.deadline <= now) {
          epoll_event none{};
          ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, &none);
          expired.push_back(std::move(it->second.complete));
          it = waiters_.erase(it);
          continue;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(it->second.deadline - now).count() + 1;
        timeout_ms = std::min<int>(timeout_ms, static_cast<int>(left));
        ++it;
      }
      next_wakeup_ = now + std::chrono::milliseconds(timeout_ms);
    }
    for (auto& complete : expired) complete(FdWaitResult::kTimedOut);
    int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout_ms);
    std::vector<std::pair<std::function<void(FdWaitResult)>, FdWaitResult>> ready;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (fd == wake_fd_) {
          uint64_t value;
          (void)!::read(wake_fd_, &value, sizeof value);
          continue;
        }
        auto it = waiters_.find(fd);
        if (it == waiters_.end()) continue;
        // Errors and hang-ups are "ready" too: the owner's next read reports them.
        ready.emplace_back(std::move(it->second.complete), FdWaitResult::kReady);
        waiters_.erase(it);
      }
    }
    for (auto& [complete, result] : ready) complete(result);
  }
}

}  // namespace clusterctl
