// WaitReport: one wait of a host's run outside its steps' work (deploy_events.h,
// WaitEvent), told as it goes: started, then "still" at most every
// `every` while the waiter polls, then ended or gave up with its duration.
// Not thread-safe: one host's coroutine owns it.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "common/clock.h"
#include "controller/engine/deploy_events.h"

namespace clusterctl {

class WaitReport {
 public:
  using Sink = std::function<void(const WaitEvent&)>;
  static constexpr std::chrono::milliseconds kEvery{15000};

  // Emits the started event.
  WaitReport(Sink sink, const Clock& clock, std::string host, std::string what,
             std::chrono::milliseconds every = kEvery);
  WaitReport(WaitReport&& other) noexcept;
  WaitReport& operator=(WaitReport&&) = delete;
  // Ends it (Ended) if neither End nor GaveUp did.
  ~WaitReport();

  // The waiter's poll: a "still" event, saying what it waits on now, once
  // `every` has passed since the start or the last one.
  void Still(const std::string& detail = "");
  void Ended();
  // The wait's bound was reached with `missing` still missing.
  void GaveUp(const std::string& missing);
  int64_t elapsed_ms() const;

 private:
  void Finish(WaitPhase phase, const std::string& detail);

  Sink sink_;
  const Clock* clock_;
  std::string host_, what_;
  std::chrono::milliseconds every_;
  std::chrono::steady_clock::time_point started_, last_told_;
  bool finished_ = false;
};

}  // namespace clusterctl
