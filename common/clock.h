// Clock: the one source of time, so tests can run on a fake clock. Code
// reads the run's clock where it has one, else a SystemClock (transport
// deadlines, the agent, clusterctl-health); nothing else reads a
// std::chrono clock (scripts/check-structure.sh).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace clusterctl {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time in milliseconds since the Unix epoch (for records).
  virtual int64_t NowMs() const = 0;
  // Monotonic time (for durations and deadlines).
  virtual std::chrono::steady_clock::time_point Monotonic() const = 0;
  // A wait of `duration` on this clock: how long the caller must really
  // wait (remote/sleep.h's SleepFor). The system clock: all of it; a fake
  // clock moves itself on by `duration` and answers 0, so a test's waits
  // (reboot probes, restart settling) take no real time.
  virtual std::chrono::milliseconds Sleep(std::chrono::milliseconds duration) const { return duration; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override;
  std::chrono::steady_clock::time_point Monotonic() const override { return std::chrono::steady_clock::now(); }
};

// Tests' clock. One clock shared by several hosts' coroutines moves on by
// each one's waits, so under concurrency it runs ahead of any one host's
// view. Its Monotonic() is not comparable with steady_clock: an agent
// deadline taken from it never fires in a test.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t now_ms = 1'700'000'000'000) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_; }
  std::chrono::steady_clock::time_point Monotonic() const override {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(now_ms_));
  }
  void Advance(std::chrono::milliseconds by) { now_ms_ += by.count(); }
  std::chrono::milliseconds Sleep(std::chrono::milliseconds duration) const override {
    now_ms_ += duration.count();
    return std::chrono::milliseconds(0);
  }

 private:
  mutable std::atomic<int64_t> now_ms_;
};

// "2026-11-21 16:50:03 UTC"
std::string FormatUtc(int64_t ms_since_epoch);
// "850ms", "12.3s", "4m05s", "2h03m"
std::string FormatDuration(int64_t ms);

}  // namespace clusterctl
