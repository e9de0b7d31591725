// CancelToken: how a run is asked to stop (Ctrl-C or SIGTERM in the command
// line, an API call in the daemon) and how long its current work may take
// to finish after that.
//
// Thread-safe and lock-free: Cancel() may be called from a signal-handling
// thread while host coroutines poll cancelled() between steps and the agent
// transport polls abandon_due() while it waits for a reply.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

#include "common/clock.h"

namespace clusterctl {

class CancelToken {
 public:
  using Clock = std::chrono::steady_clock;

  // Asks the run to stop: no new step or host starts; a step in flight may
  // finish within `grace`, after which it is abandoned. A later call may
  // shorten the grace (a second Ctrl-C: stop now), never lengthen it.
  void Cancel(std::chrono::milliseconds grace) {
    const int64_t at = (SystemClock().Monotonic() + grace).time_since_epoch().count();
    int64_t current = abandon_at_.load();
    while (at < current && !abandon_at_.compare_exchange_weak(current, at)) {
    }
    cancelled_.store(true);
  }

  bool cancelled() const { return cancelled_.load(); }
  // Cancelled and the grace has passed: abandon what is in flight.
  bool abandon_due() const {
    return cancelled() && SystemClock().Monotonic().time_since_epoch().count() >= abandon_at_.load();
  }
  // When work in flight is abandoned (time_point::max() while not cancelled).
  Clock::time_point abandon_at() const {
    return cancelled() ? Clock::time_point(Clock::duration(abandon_at_.load())) : Clock::time_point::max();
  }

 private:
  std::atomic<bool> cancelled_{false};
  std::atomic<int64_t> abandon_at_{std::numeric_limits<int64_t>::max()};
};

}  // namespace clusterctl
