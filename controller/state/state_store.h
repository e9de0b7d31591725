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

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/status.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/sqlite.h"
#include "controller/state/state_lock.h"

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

enum class RunStatus { kRunning, kOk, kFailed, kInterrupted };
const char* ToString(RunStatus status);

struct HostRecord {
  std::string name;
  std::optional<std::string> address;
  std::string status;  // never | ok | failed | unreachable | removed
  bool in_inventory = true;
  int64_t first_seen_at = 0;
  std::optional<int64_t> last_run_id;
  std::optional<int64_t> last_status_at;
  std::optional<std::string> last_error;
  std::optional<std::string> host_key_type;
  std::optional<std::string> host_key_sha256;
  bool drifted = false;
  std::optional<int64_t> removed_at;
  // The first of the connection attempts that failed since the last that
  // worked, whatever the command; its last error. Unset while reachable.
  std::optional<int64_t> unreachable_since;
  std::optional<std::string> unreachable_error;
};

struct StoredHostKey {
  std::string type;
  std::string sha256;
};

struct StoredFacts {
  int64_t gathered_at = 0;
  nlohmann::json facts;
};

struct StepResult {
  std::string input_hash;
  std::string status;  // ok | changed | failed | skipped
};

struct Intent {
  int64_t id = 0;
  std::string host;
  std::string kind;    // handler | reboot
  std::string target;  // "role/handler name"
  std::string reason;
  nlohmann::json detail;  // progress (e.g. the service invocation id before a restart)
};

struct StepRecord {
  int64_t run_id = 0;
  std::string host, role, step_id, input_hash, status, output_summary;
  bool changed = false;
  int64_t started_at = 0, finished_at = 0;
};

struct RunRecord {
  int64_t id = 0;
  std::string kind;
  std::string command;
  std::string controller_host;
  int pid = 0;
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  std::string status;
  std::optional<std::string> summary;
  std::optional<std::string> extra_vars;  // JSON object: -e/--extra-vars; null when none
};

// One stored validation result (docs/state.md, table validations).
struct StoredValidation {
  int64_t run_id = 0;
  std::string check, scope, subject, result, measured, threshold, detail;
  std::vector<std::string> evidence;
  int64_t at = 0;
};

class StateStore {
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
  bool writable() const { return lock_ != nullptr; }
  // Set when OpenForWriting found the record of a holder that died holding the lock.
  const std::optional<LockHolder>& cleared_stale_holder() const { return cleared_stale_holder_; }

  // Runs. BeginRun marks runs left 'running' by dead processes 'interrupted'
  // (only a lock holder can be running, and the caller now holds the lock).
  Result<int64_t> BeginRun(const std::string& kind, const std::string& command);
  Status FinishRun(int64_t run_id, RunStatus status, const nlohmann::json& summary);
  // The run's -e/--extra-vars (a JSON object), for history.
  Status RecordRunExtraVars(int64_t run_id, const nlohmann::json& extra_vars);
  Result<std::vector<RunRecord>> ListRuns(int limit, int64_t only_id = 0);  // only_id: that run alone

  // Hosts (host_records.cc).
  Result<std::vector<HostRecord>> ListHosts();
  // Adds inventory hosts the state does not know (status 'never'), refreshes
  // addresses, and flags hosts that left the inventory (in_inventory = 0).
  Status SyncInventoryHosts(const std::vector<std::pair<std::string, std::string>>& names_and_addresses);
  // Accepted SSH host keys: hosts by name, jump hosts as "jump:<host>:<port>".
  Result<std::map<std::string, StoredHostKey>> LoadHostKeys();
  Status RecordHostKeys(const std::vector<std::pair<std::string, StoredHostKey>>& keys);
  // Removes a recorded key; NotFound when there is none.
  Status ForgetHostKey(const std::string& name);

  // Facts (facts_records.cc): the latest facts of each host.
  Status SaveFacts(int64_t run_id, const std::vector<std::pair<std::string, nlohmann::json>>& facts);
  Result<std::map<std::string, StoredFacts>> LoadFacts();

  // Events (the run's journal; also what `history` shows).
  Status RecordEvent(std::optional<int64_t> run_id, const std::optional<std::string>& host,
                     const std::string& level, const std::string& kind, const std::string& message);

  // The resume model (engine_records.cc). These run inside the caller's
  // transaction: the engine's StateWriter groups them.
  // Last result of every step identity: host -> "role/step" -> result.
  Result<std::map<std::string, std::map<std::string, StepResult>>> LoadLastStepResults();
  Status RecordStep(const StepRecord& step);
  Result<std::vector<Intent>> LoadOpenIntents();
  // Opens an intent (or returns the open one with the same host/kind/target).
  Result<int64_t> OpenIntent(int64_t run_id, const std::string& host, const std::string& kind,
                             const std::string& target, const std::string& reason);
  Status SetIntentDetail(int64_t intent_id, const nlohmann::json& detail);
  Status CloseIntent(int64_t intent_id, int64_t run_id);
  // Secrets (by name only) the state's secrets/ holds: a missing one is then
  // refused instead of silently generated anew (SecretVault::Prepare).
  Result<std::set<std::string>> KnownSecrets();
  Status RecordSecrets(int64_t run_id, const std::vector<std::string>& names);
  // A host gone from the inventory whose removal a deploy completed.
  Status MarkHostRemoved(const std::string& host, int64_t run_id);
  // Roles that ever converged steps on a host (what it may still carry).
  Result<std::vector<std::string>> RolesRecordedFor(const std::string& host);
  Status DeleteIntent(int64_t intent_id);
  // Per host: the error of a connection attempt that failed (the first of
  // a row of them sets unreachable_since), or nullopt: it was reached.
  Status RecordReachability(const std::vector<std::pair<std::string, std::optional<std::string>>>& hosts);
  Status RecordHostOutcome(const std::string& host, const std::string& status, int64_t run_id,
                           const std::optional<std::string>& error);
  // Whether a drift check (deploy --verify without changes) found the host
  // different from its roles; a converging deploy clears it.
  Status SetHostDrifted(const std::string& host, bool drifted);
  // Keeps the newest kFileBackupsKept backups of each host's file.
  static constexpr int kFileBackupsKept = 5;
  Status SaveFileBackup(int64_t run_id, const std::string& host, const std::string& path, const std::string& content);
  Result<std::vector<StepRecord>> StepsOfRun(int64_t run_id);
  Result<std::vector<nlohmann::json>> EventsOfRun(int64_t run_id);

  // Validation results (validation_records.cc).
  Status SaveValidations(int64_t run_id, const std::vector<StoredValidation>& results);
  Result<std::vector<StoredValidation>> ValidationsOfRun(int64_t run_id);
  // For each node subject, the results of the latest validate run that checked it.
  Result<std::map<std::string, std::vector<StoredValidation>>> LatestValidationPerNode();
  // For each check and subject of a wider scope than one node (the cluster,
  // the monitoring host's targets), the result of the latest run that checked it.
  Result<std::vector<StoredValidation>> LatestClusterValidations();

  SqliteDb& db() { return *db_; }
  int64_t NowMs() const;

 private:
  StateStore() = default;

  StatePaths paths_;
  std::unique_ptr<StateLock> lock_;
  std::optional<LockHolder> cleared_stale_holder_;
  std::unique_ptr<SqliteDb> db_;
  const Clock* clock_ = nullptr;
  SystemClock system_clock_;
};

}  // namespace clusterctl
