// The state store's writer lock: one writing clusterctl per state directory.
//
// An exclusive flock(2) on `<state>/lock`, whose content names the holder
// (pid, host, start time, command) so a refused second writer can say who
// holds it. The kernel drops a flock when its process dies, however it dies,
// so a dead holder's lock is cleared by construction; the next holder finds
// the dead one's record still in the file and reports it as cleared.
// flock is reliable only on local file systems, which is why the state
// directory must be local (filesystem_check.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"

namespace clusterctl {

struct LockHolder {
  int pid = 0;
  std::string host;
  int64_t started_at_ms = 0;
  std::string command;

  // "pid 1234 on head01 since 2026-11-21 16:50:03 UTC (clusterctl deploy site.yaml)"
  std::string Describe() const;
  std::string Serialize() const;
  static std::optional<LockHolder> Parse(const std::string& text);
  // This process, now.
  static LockHolder Current(int64_t now_ms, const std::string& command);
};

class StateLock {
 public:
  struct Acquired {
    std::unique_ptr<StateLock> lock;
    // A holder that died without releasing (its record was still in the file).
    std::optional<LockHolder> cleared_stale_holder;
  };

  // Takes the lock without waiting. Busy (naming the holder) when another
  // process holds it; IoError when the lock file cannot be opened.
  static Result<Acquired> Acquire(const std::string& lock_path, const LockHolder& me);

  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;
  // Clears the holder record, then releases the lock.
  ~StateLock();

 private:
  explicit StateLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace clusterctl
