// HostKeyJournal: SSH host keys accepted during a run (accept-new), written
// to the state store as they are accepted, not at the run's end: a run
// killed after trusting a new key must still know that key next time, or a
// key swapped between the two runs would be accepted as new.
//
// Record() returns once its key is committed (a host's first request waits
// for it: a key the state may have lost must not be trusted with a sudo
// password or a secret). Hosts record concurrently; one thread writes what
// has queued in one transaction on its own connection to the database (WAL
// lets it write beside the run's main connection; SQLite's busy timeout
// orders the two), so hosts that accept keys together share a commit.
// Flush() waits until everything recorded so far is committed; the
// destructor flushes.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "controller/state/state_store.h"

namespace clusterctl {

class HostKeyJournal {
 public:
  // A journal writing beside `main`. REQUIRES: main.writable().
  static Result<std::unique_ptr<HostKeyJournal>> Open(const StateStore& main);
  ~HostKeyJournal();

  // Blocks until the transaction holding this key is committed; returns its status.
  Status Record(const std::string& name, const StoredHostKey& key);
  // The first error of a write since the journal opened, once all queued writes are done.
  Status Flush();

 private:
  explicit HostKeyJournal(std::unique_ptr<StateStore> store);
  void Loop();

  std::unique_ptr<StateStore> store_;  // a second connection, no lock of its own
  std::mutex mutex_;
  std::condition_variable wake_, drained_;
  std::deque<std::pair<std::string, StoredHostKey>> queue_;
  uint64_t queued_ = 0;   // keys ever queued; a key's ticket is its number
  uint64_t written_ = 0;  // keys whose transaction has ended (committed or failed)
  // Tickets [first, last] of the transactions that failed, with the error.
  std::vector<std::tuple<uint64_t, uint64_t, Status>> failures_;
  bool writing_ = false;
  bool stopping_ = false;
  Status first_error_;
  std::thread thread_;
};

}  // namespace clusterctl
