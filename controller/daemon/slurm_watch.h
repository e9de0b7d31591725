// SlurmWatch: slurmctld's view of the nodes, read by the daemon every
// `interval` on the inventory's Slurm controller (`scontrol show node`, its
// JSON or its text: validate/scontrol_nodes.h), for the status document,
// the page and the metrics: which nodes cannot run jobs (drained, down,
// ...), why (Slurm's reason), and whether clusterctl-health drained them
// (the reason starts "clusterctl: ", health/slurm_drain.h).
//
// A reading is not a job. It changes nothing anywhere, so it needs none of
// what a job holds: no state writer lock (a deploy from a shell goes on
// beside it), no run record (one a minute would bury the run history), no
// host key recorded (a key the state does not hold is refused: a deploy
// records it), no agent installed (a node without this build's agent is an
// error: a deploy installs it). On the node it runs one read-only command
// (two with the text fallback) through the agent. So it runs on its own
// thread beside the daemon's one job at a time: a job never waits for it,
// and it never waits for a job. Its sessions come from a RemoteRunner of
// its own, made for each reading from the host keys the state holds then
// (read without a lock), or from the daemon's SessionFactory in tests.
//
// Every byte from the node is hostile: an answer that cannot be read is an
// error shown (never a crash); names, states and reasons are bounded text;
// at most kMaxListed nodes are listed (the counts cover all). A failed
// reading keeps the last good one, with when it was read, beside the error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cancel_token.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/daemon/site.h"
#include "controller/remote/remote_runner.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/state_store.h"
#include "controller/validate/slurm_output.h"

namespace clusterctl {

// A node that cannot run jobs, as the reading shows it.
struct SlurmUnavailableNode {
  std::string name;
  std::string state;   // as Slurm printed it: "IDLE+DRAIN"
  std::string why;     // "drained", "down, not responding"
  std::string reason;  // Slurm's reason, "" when none
  bool drained_by_health = false;
};

struct SlurmNodesReading {
  static constexpr size_t kMaxListed = 500;
  bool configured = false;   // the inventory has a Slurm controller (its "controller" group)
  std::string controller;    // the host the last attempt read from (or tried last)
  int64_t interval_s = 0;
  int64_t tried_at_ms = 0;   // the last attempt; 0: none yet
  int64_t read_at_ms = 0;    // the last attempt that read the nodes; 0: none yet
  std::string error;         // why the last attempt read nothing; "" when it read them
  // From the last good reading:
  std::string read_from;     // "scontrol show node --json (Slurm 24.11.5)"
  size_t nodes = 0;                  // every node slurmctld knows
  size_t unavailable_by_health = 0;  // cannot run jobs, drained by clusterctl-health
  size_t unavailable_other = 0;      // cannot run jobs for any other reason (an admin's drain, down, ...)
  std::vector<SlurmUnavailableNode> unavailable;  // the first kMaxListed of them, by name
};

// Pure: the nodes slurmctld answered, into `reading` (read_at = now_ms, error
// cleared). Every text is bounded and made valid, one-line UTF-8.
void TakeSlurmNodes(SlurmNodesReading& reading, const std::vector<SlurmNodeState>& nodes, int64_t now_ms);

// The status document's `slurm` (docs/api.md).
nlohmann::json SlurmToJson(const SlurmNodesReading& reading);

struct SlurmWatchOptions {
  std::chrono::seconds interval{60};
  int command_timeout_s = 30;  // each scontrol run on the controller
  StatePaths paths;
  const Clock* clock = nullptr;                 // REQUIRED
  const FilesystemProbe* filesystem = nullptr;  // REQUIRED
  RemoteOptions remote;                         // the sudo password, if the daemon was given one
  SessionFactory* sessions = nullptr;           // tests: a fleet of fake nodes in place of SSH
  std::function<void(LogLevel, const std::string&)> log;  // a failing reading, once; its recovery
  // After each good reading, on the watch's thread, with the SSH it read
  // through (the daemon's power remediation: power_remediator.h); optional.
  std::function<void(const Site&, const SlurmNodesReading&, SessionFactory&)> after_reading;
};

class SlurmWatch {
 public:
  SlurmWatch(SlurmWatchOptions options, std::function<std::shared_ptr<const Site>()> site);
  ~SlurmWatch();  // Stop()

  // Reads now, then every interval, on the watch's thread.
  void Start();
  // Abandons a reading in flight and joins the thread.
  void Stop();
  // One reading on the caller's thread (the thread's loop; tests).
  void ReadNow();
  SlurmNodesReading Get() const;

 private:
  void Loop();
  // Reads the nodes on `controllers`, the first that answers; the errors otherwise.
  Result<std::vector<SlurmNodeState>> ReadFrom(SessionFactory& sessions, const std::vector<const Host*>& controllers,
                                               std::string& read_on);
  Result<std::unique_ptr<RemoteRunner>> ReadOnlyRunner() const;
  void AfterReading(const Site& site, const SlurmNodesReading& reading, SessionFactory& sessions);
  void Record(SlurmNodesReading reading);

  SlurmWatchOptions options_;
  std::function<std::shared_ptr<const Site>()> site_;
  mutable std::mutex mutex_;
  SlurmNodesReading reading_;
  std::condition_variable wake_;
  bool stopping_ = false;
  CancelToken cancel_;
  std::thread thread_;
};

}  // namespace clusterctl
