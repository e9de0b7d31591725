// GET /metrics: the Prometheus text exposition format (version 0.0.4),
// written by hand (a few dozen lines do not need prometheus-cpp). Every
// family has HELP and TYPE; counters end in _total; label values are
// escaped (\\, \", \n), so a host or check name cannot break a line.
//
//   clusterctl_host_health{host,health}      1 for the host's health, 0 for the others
//   clusterctl_host_drifted_steps{host}      steps the last drift check found changed
//   clusterctl_validation_check{host,check}  1 pass, 0 fail (latest validation per node)
//   clusterctl_run_duration_seconds{kind}    the last finished run of each kind
//   clusterctl_run_success{kind}             1 when it ended ok
//   clusterctl_run_finished_timestamp_seconds{kind}
//   clusterctl_drift_checks_total, clusterctl_drift_last_check_timestamp_seconds
//   clusterctl_job_running{kind}             1 while a job of that kind runs
//   clusterctl_http_requests_total{route,code}
//   clusterctl_daemon_start_timestamp_seconds, clusterctl_inventory_valid
//   with a Slurm controller in the inventory (slurm_watch.h):
//   clusterctl_slurm_nodes                   nodes in the last good reading
//   clusterctl_slurm_nodes_unavailable{drained_by}  nodes that cannot run jobs: health (clusterctl-health's
//                                            drain), other (an admin's drain, down, not responding, ...)
//   clusterctl_slurm_read_ok                 1 when the last attempt read the nodes
//   clusterctl_slurm_read_timestamp_seconds  when the nodes were last read (0: never)
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "controller/daemon/status_document.h"

namespace clusterctl {

// The daemon's request counters (route is a route template, never a raw path).
class RequestCounters {
 public:
  void Count(const std::string& route, int code);
  std::map<std::pair<std::string, int>, uint64_t> Snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> counts_;
};

std::string EscapeLabelValue(const std::string& value);

std::string RenderMetrics(const Site& site, const StateSnapshot& state, const DriftBook& drift, const JobRunner& jobs,
                          const DaemonFacts& daemon, const RequestCounters& requests, const SlurmNodesReading& slurm);

}  // namespace clusterctl
