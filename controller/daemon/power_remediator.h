// PowerRemediator: the daemon's power remediation (power_remediation.h)
// carried out, after each good Slurm reading, on the Slurm watch's thread
// (slurm_watch.h): each node Slurm has down that has a BMC is asked about
// (a session to its agent through the reading's SSH, as a deploy opens
// one; its BMC's power state through ipmitool, as `clusterctl power
// status`), the policy decides, and each node it picks is first silenced
// in Alertmanager until the policy's settle time has passed (a silence
// that cannot be opened is logged: monitoring never blocks the cycle,
// as in a deploy), then power-cycled (PowerCycleHost: the same path as
// `clusterctl power cycle`). Every decision to cycle, and every cycle's
// result, is a log line; a node held back is logged once per reason.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "controller/daemon/power_remediation.h"
#include "controller/daemon/slurm_watch.h"
#include "controller/engine/maintenance_silences.h"
#include "controller/power/local_process.h"
#include "controller/remote/session_factory.h"

namespace clusterctl {

class PowerRemediator {
 public:
  using LogLine = std::function<void(LogLevel, const std::string&)>;
  // `ipmitool` and `clock` must outlive it.
  PowerRemediator(PowerRemediationPolicy policy, ProcessRunner& ipmitool, const Clock& clock, LogLine log);

  // One turn after a good reading (`reading.error` empty). `silences`:
  // the cluster's Alertmanager, null when it has none.
  void Turn(const Inventory& inventory, const SlurmNodesReading& reading, SessionFactory& sessions,
            MaintenanceSilences* silences);
  // Turn, silencing in the site's Alertmanager (the first monitoring
  // host's, as a deploy does; none without one).
  void TurnWithAlertmanager(const Site& site, const SlurmNodesReading& reading, SessionFactory& sessions);
  std::vector<PastPowerCycle> Cycles() const;

 private:
  std::vector<DownNode> Probe(const std::vector<const Host*>& hosts, SessionFactory& sessions);
  void Cycle(const PowerDecision& decision, MaintenanceSilences* silences);

  PowerRemediationPolicy policy_;
  ProcessRunner& ipmitool_;
  const Clock& clock_;
  LogLine log_;
  mutable std::mutex mutex_;
  std::vector<PastPowerCycle> cycles_;
  std::map<std::string, std::string> told_;  // host -> why it was last held back (logged once)
};

}  // namespace clusterctl
