// What the state's records share, and the base of each concern's records
// (run_records.h, host_records.h, ...): StateStore (state_store.h) opens the
// state and is every concern's records at once; a caller that needs one
// concern can take just its class.
//
// Thread-safety: like SqliteDb, the records of one StateStore belong to one
// thread at a time.
#pragma once

#include <cstdint>
#include <memory>

#include "common/clock.h"
#include "controller/state/sqlite.h"
#include "controller/state/state_lock.h"

namespace clusterctl {

// An open state: the writer lock when this process holds it (declared
// first, so the database closes before the lock is released), the database
// connection, and the clock that stamps rows.
struct OpenState {
  std::unique_ptr<StateLock> lock;
  std::unique_ptr<SqliteDb> db;
  const Clock* clock = nullptr;  // null: the system clock (readers)
  SystemClock system_clock;

  bool writable() const { return lock != nullptr; }
  int64_t NowMs() const { return clock ? clock->NowMs() : system_clock.NowMs(); }
};

class StateRecords {
 protected:
  // REQUIRES: `state` outlives these records (StateStore owns both).
  explicit StateRecords(OpenState& state) : state_(state) {}

  SqliteDb& db() const { return *state_.db; }
  int64_t NowMs() const { return state_.NowMs(); }
  bool writable() const { return state_.writable(); }

 private:
  OpenState& state_;
};

}  // namespace clusterctl
