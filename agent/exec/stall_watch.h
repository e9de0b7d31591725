// A command that stops making progress is stopped long before its time
// limit: apt's http method can wait forever on a proxy connection the proxy
// dropped (seen on the testbed: the socket in CLOSE-WAIT for 20 minutes),
// while a healthy download never goes quiet for long.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterctl::agent {

// What progress means for one command. Progress is new output, or a change
// in `progress()` (sampled at most once a second; e.g. the bytes in apt's
// partial directories while one large file downloads without a new output
// line). Without progress for `window` the command counts as stalled and is
// stopped as at its time limit. Once the output holds one of `ends_at` the
// watch ends for the rest of the command: what follows may rightly be long
// and silent (dpkg running a maintainer script, an initramfs rebuild).
struct StallWatch {
  std::chrono::milliseconds window{0};  // 0: not watched
  std::function<uint64_t()> progress;   // optional
  std::vector<std::string> ends_at;
};

// Follows one command's progress for RunCommand's loop (run_command.cc).
class StallTracker {
 public:
  using Clock = std::chrono::steady_clock;

  StallTracker(const StallWatch& watch, Clock::time_point start)
      : watch_(watch), last_progress_(start), last_sample_(start) {
    if (watch_.progress) sample_ = watch_.progress();
  }

  // `added`: output the command wrote since the last call (may be empty).
  // True once the command has stalled (and from then on).
  bool Stalled(std::string_view added, Clock::time_point now) {
    if (watch_.window.count() <= 0 || ended_) return stalled_;
    if (!added.empty()) {
      last_progress_ = now;
      // A marker split across two reads is found in the carried tail.
      tail_.append(added);
      for (const std::string& end : watch_.ends_at) {
        if (tail_.find(end) != std::string::npos) ended_ = true;
      }
      if (tail_.size() > 256) tail_.erase(0, tail_.size() - 256);
      if (ended_) return false;
    }
    if (watch_.progress && now - last_sample_ >= std::chrono::seconds(1)) {
      last_sample_ = now;
      const uint64_t sample = watch_.progress();
      if (sample != sample_) last_progress_ = now;
      sample_ = sample;
    }
    if (now - last_progress_ >= watch_.window) stalled_ = true;
    return stalled_;
  }

 private:
  const StallWatch& watch_;
  Clock::time_point last_progress_, last_sample_;
  uint64_t sample_ = 0;
  std::string tail_;
  bool ended_ = false;
  bool stalled_ = false;
};

}  // namespace clusterctl::agent
