// StopOnSignals: SIGINT and SIGTERM ask the current run to stop instead of
// killing the process, so the run ends cleanly: no new step starts, a step
// in flight gets `grace` to finish, owed follow-ups stay recorded, and the
// recap says what is left. A second signal stops at once (the step in flight
// is abandoned; the next deploy checks what it did).
//
// The handler only writes a byte to a pipe; a watcher thread turns it into
// CancelToken::Cancel and a line on stderr. While an object lives, the
// previous dispositions are saved; they are restored when it is destroyed.
// At most one object at a time.
#pragma once

#include <signal.h>

#include <chrono>
#include <thread>

#include "common/cancel_token.h"
#include "common/log.h"

namespace clusterctl {

class StopOnSignals {
 public:
  StopOnSignals(Logger& log, std::chrono::milliseconds grace);
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  const CancelToken& token() const { return token_; }

 private:
  void Watch();

  Logger& log_;
  std::chrono::milliseconds grace_;
  CancelToken token_;
  int pipe_[2] = {-1, -1};
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  std::thread watcher_;
};

}  // namespace clusterctl
