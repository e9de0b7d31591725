// RunSession: what every run that talks to hosts sets up and tears down,
// for the command line and the daemon alike: the state store with its
// writer lock, the run record, the hosts' records, the SSH host keys
// (recorded ones in, accepted ones written as they are accepted), and the
// fan-out (RemoteRunner) with the agent builds.
//
// It prints nothing and reads no terminal or environment: the caller hands
// it the options (the sudo password included) and reports what it returns.
// Requests are prepared and runs completed by controller/run/.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "controller/remote/remote_runner.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/host_key_journal.h"
#include "controller/state/state_store.h"
#include "inventory/model.h"

namespace clusterctl {

// What a run does; its word is the run record's kind.
enum class RunKind { kDeploy, kPlan, kDrift, kValidate, kFacts, kCommand };
const char* ToString(RunKind kind);  // deploy | plan | drift | validate | facts | run

struct RunSessionOptions {
  RunKind kind = RunKind::kDeploy;
  std::string command;  // recorded with the run and as the lock holder's command
  StatePaths paths;
  const Clock* clock = nullptr;                 // REQUIRED
  const FilesystemProbe* filesystem = nullptr;  // REQUIRED
  RemoteOptions remote;                         // the sudo password, if any, is here
  FanoutOptions fanout;
  // Set: hosts are reached through these sessions (unit tests: a fleet of
  // fake nodes), and no RemoteRunner or agent build is needed.
  SessionFactory* sessions = nullptr;
};

class RunSession {
 public:
  // Takes the writer lock (Busy, naming the holder, when another run has
  // it), records the inventory's hosts and the run, and prepares the
  // fan-out. Nothing is touched on any host.
  static Result<std::unique_ptr<RunSession>> Open(const Inventory& inventory, const RunSessionOptions& options);

  StateStore& state() { return *state_; }
  int64_t run_id() const { return run_id_; }
  // The run's time (RunSessionOptions::clock).
  const Clock& clock() const { return *clock_; }
  // Where the run's hosts are reached: the RemoteRunner, or the sessions
  // the options named.
  SessionFactory& sessions() { return sessions_ ? *sessions_ : *runner_; }

  // Ends the run: waits until the host keys accepted during it are written
  // (each is written as it is accepted), records an event per host that
  // was not ok, and the run's status and summary. Returns notes for the
  // admin (jump hosts) and the first problem writing the state, if any.
  struct Ending {
    std::vector<std::string> notes;
    Status recorded;
  };
  Ending Finish(const std::vector<HostResult>& results, RunStatus status, const nlohmann::json& summary);

 private:
  RunSession() = default;

  std::unique_ptr<StateStore> state_;
  std::unique_ptr<HostKeyJournal> host_keys_;  // before runner_: it outlives the hosts that record keys
  int64_t run_id_ = 0;
  const Clock* clock_ = nullptr;
  std::unique_ptr<RemoteRunner> runner_;  // unless the options named the sessions
  SessionFactory* sessions_ = nullptr;
};

}  // namespace clusterctl
