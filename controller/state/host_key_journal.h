// HostKeyJournal: SSH host keys accepted during a run (accept-new), written
// to the state store as they are accepted, not at the run's end: a run
// killed after trusting a new key must still know that key next time, or a
// key swapped between the two runs would be accepted as new.
//
// Record() only queues (it is called from the hosts' threads in the middle
// of a handshake); one thread writes what has queued in one transaction on
// its own connection to the database (WAL lets it write beside the run's
// main connection; SQLite's busy timeout orders the two). Flush() waits
// until everything recorded so far is committed; the destructor flushes.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "controller/state/state_store.h"

namespace clusterctl {

class HostKeyJournal {
 public:
  // A journal writing beside `main`. REQUIRES: main.writable().
  static Result<std::unique_ptr<HostKeyJournal>> Open(const StateStore& main);
  ~HostKeyJournal();

  void Record(const std::string& name, const StoredHostKey& key);
  // The first error of a write since the journal opened, once all queued writes are done.
  Status Flush();

 private:
  explicit HostKeyJournal(std::unique_ptr<StateStore> store);
  void Loop();

  std::unique_ptr<StateStore> store_;  // a second connection, no lock of its own
  std::mutex mutex_;
  std::condition_variable wake_, drained_;
  std::deque<std::pair<std::string, StoredHostKey>> queue_;
  bool writing_ = false;
  bool stopping_ = false;
  Status first_error_;
  std::thread thread_;
};

}  // namespace clusterctl
