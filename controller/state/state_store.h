// StateStore: the per-cluster SQLite state (docs/state.md).
//
// Two ways in:
//  - OpenForWriting takes the writer lock first (a second writer gets Busy
//    naming the holder), refuses network file systems, creates the directory
//    (0700) and secrets/ (0700), enables WAL and migrates the schema.
//  - OpenForReading needs no lock (WAL lets readers run beside a writer) and
//    returns NotFound when the cluster has no state yet; it creates nothing.
//
// Durability contract: every method that writes commits before it returns
// (synchronous=FULL), so a record made before an action survives a crash or
// power cut during that action.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "controller/state/event_records.h"
#include "controller/state/facts_records.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/host_key_records.h"
#include "controller/state/host_records.h"
#include "controller/state/intent_records.h"
#include "controller/state/run_records.h"
#include "controller/state/secret_records.h"
#include "controller/state/sqlite.h"
#include "controller/state/state_lock.h"
#include "controller/state/step_records.h"
#include "controller/state/validation_records.h"

namespace clusterctl {

struct StatePaths {
  std::string dir;

  std::string database() const { return dir + "/state.db"; }
  std::string lock() const { return dir + "/lock"; }
  std::string secrets() const { return dir + "/secrets"; }

  // `override_dir` (from --state) when given, else `.clusterctl` beside the inventory.
  static StatePaths For(const std::string& inventory_dir, const std::string& override_dir);
};

// Creates the state directory and its secrets/ (0700) with the checks a
// writer makes (owner, mode, file system), without taking the lock: for the
// daemon, which keeps its token in secrets/ while another process may hold
// the state.
Status PrepareStateDirectories(const StatePaths& paths, const FilesystemProbe& probe);

// Every concern's records at once (run_records.h, host_records.h, ...): a
// caller that needs one concern can take just its class.
class StateStore : public RunRecords,
                   public EventRecords,
                   public HostRecords,
                   public HostKeyRecords,
                   public FactsRecords,
                   public StepRecords,
                   public IntentRecords,
                   public SecretRecords,
                   public ValidationRecords {
 public:
  struct WriterOptions {
    const Clock* clock = nullptr;            // REQUIRED
    const FilesystemProbe* probe = nullptr;  // REQUIRED
    std::string command;                     // recorded as the lock holder's command
  };

  static Result<std::unique_ptr<StateStore>> OpenForWriting(const StatePaths& paths, const WriterOptions& options);
  static Result<std::unique_ptr<StateStore>> OpenForReading(const StatePaths& paths, const FilesystemProbe& probe);

  // A second read-write connection to this store's database for a writer
  // that runs beside the main connection (HostKeyJournal). It holds no lock
  // of its own. REQUIRES: writable().
  Result<std::unique_ptr<StateStore>> OpenSideConnection() const;

  const StatePaths& paths() const { return paths_; }
  bool writable() const { return open_->writable(); }
  // Set when OpenForWriting found the record of a holder that died holding the lock.
  const std::optional<LockHolder>& cleared_stale_holder() const { return cleared_stale_holder_; }

  SqliteDb& db() { return *open_->db; }
  int64_t NowMs() const { return open_->NowMs(); }

 private:
  StateStore(StatePaths paths, std::unique_ptr<OpenState> open, std::optional<LockHolder> cleared_stale_holder);

  StatePaths paths_;
  std::optional<LockHolder> cleared_stale_holder_;
  std::unique_ptr<OpenState> open_;  // every concern's records refer to it
};

}  // namespace clusterctl
