// RunSession: what every run that talks to hosts sets up and tears down,
// for the command line and the daemon alike: the state store with its
// writer lock, the run record, the hosts' records, the SSH host keys
// (recorded ones in, accepted ones written as they are accepted), and the
// fan-out (RemoteRunner) with the agent builds.
//
// It prints nothing and reads no terminal or environment: the caller hands
// it the options (the sudo password included) and reports what it returns.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "controller/engine/deploy_run.h"
#include "controller/remote/remote_runner.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/host_key_journal.h"
#include "controller/state/state_store.h"
#include "inventory/model.h"

namespace clusterctl {

struct RunSessionOptions {
  std::string kind;     // deploy | plan | validate | facts | run
  std::string command;  // recorded with the run and as the lock holder's command
  StatePaths paths;
  const Clock* clock = nullptr;                 // REQUIRED
  const FilesystemProbe* filesystem = nullptr;  // REQUIRED
  RemoteOptions remote;                         // the sudo password, if any, is here
  FanoutOptions fanout;
};

class RunSession {
 public:
  // Takes the writer lock (Busy, naming the holder, when another run has
  // it), records the inventory's hosts and the run, and prepares the
  // fan-out. Nothing is touched on any host.
  static Result<std::unique_ptr<RunSession>> Open(const Inventory& inventory, const RunSessionOptions& options);

  StateStore& state() { return *state_; }
  int64_t run_id() const { return run_id_; }
  RemoteRunner& runner() { return *runner_; }

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
  std::unique_ptr<RemoteRunner> runner_;
};

// A finished deployment as its run records it, for the command line and the
// daemon alike: each host's result (for RunSession::Finish), and the run's
// summary (hosts, changed and failed steps, check; unreachable hosts when
// any were; stopped when it was).
std::vector<HostResult> HostResultsOf(const DeploymentResult& result, const Inventory& inventory);
nlohmann::json RunSummaryOf(const DeploymentResult& result, bool check);

}  // namespace clusterctl
