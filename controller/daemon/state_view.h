// StateView: what the state store says about the cluster, read for the
// daemon's API, metrics and page through a read-only connection (no lock:
// a deploy from a shell or the daemon's own job may be writing).
//
// Reading the whole state for every request would make the API as slow as
// SQLite at 1000 hosts, so a snapshot is kept for `max_age` and replaced
// when older or after Invalidate() (the daemon calls it when a job ends).
// Thread-safe; snapshots are immutable and shared.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/state_store.h"

namespace clusterctl {

struct StateSnapshot {
  int64_t read_at_ms = 0;
  bool has_state = false;  // false: nothing deployed yet (no state.db)
  std::string error;       // reading the state failed: what, where
  std::vector<HostRecord> hosts;
  std::map<std::string, std::vector<StoredValidation>> validations;  // latest per node
  std::vector<StoredValidation> cluster_validations;                 // latest per check and subject
  std::map<std::string, nlohmann::json> facts;                      // a summary per host
  std::vector<RunRecord> runs;                                      // newest first
};

class StateView {
 public:
  StateView(StatePaths paths, const FilesystemProbe& probe, const Clock& clock, std::chrono::milliseconds max_age)
      : paths_(std::move(paths)), probe_(probe), clock_(clock), max_age_(max_age) {}

  std::shared_ptr<const StateSnapshot> Get();
  void Invalidate();

  // One run with its steps and events; NotFound when there is no such run.
  Result<nlohmann::json> RunDetail(int64_t run_id) const;

  static constexpr int kRecentRuns = 25;

 private:
  std::shared_ptr<const StateSnapshot> Read() const;

  StatePaths paths_;
  const FilesystemProbe& probe_;
  const Clock& clock_;
  std::chrono::milliseconds max_age_;
  std::mutex mutex_;
  std::shared_ptr<const StateSnapshot> snapshot_;
  std::chrono::steady_clock::time_point read_at_;
};

// The facts the page and the API show: OS, kernel, CPUs, memory, GPUs and
// the loaded driver (the full facts stay in the state).
nlohmann::json SummarizeFacts(const nlohmann::json& facts);
nlohmann::json RunToJson(const RunRecord& run);

}  // namespace clusterctl
