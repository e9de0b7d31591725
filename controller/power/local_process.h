// Running a program on the controller itself (ipmitool for the BMCs): an
// argument vector, never a shell line; its output kept, bounded; killed at
// a deadline. ProcessRunner is the interface the power engine takes, so unit
// tests answer with recorded output instead of a BMC.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.h"

namespace clusterctl {

struct ProcessOutput {
  bool started = false;    // false: it could not be run (err says why)
  bool timed_out = false;  // killed at the deadline
  int exit_code = -1;      // 128+N when killed by signal N
  std::string out, err;    // each cut at kMaxProcessOutput
};

inline constexpr size_t kMaxProcessOutput = 1 << 20;

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Thread-safe: the power engine calls it from several threads at once.
  virtual ProcessOutput Run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) = 0;
};

// posix_spawnp (PATH searched), stdin /dev/null, stdout and stderr read
// through pipes, SIGKILL at the deadline (measured on `clock`).
class LocalProcessRunner final : public ProcessRunner {
 public:
  explicit LocalProcessRunner(const Clock& clock) : clock_(clock) {}
  ProcessOutput Run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) override;

 private:
  const Clock& clock_;
};

}  // namespace clusterctl
