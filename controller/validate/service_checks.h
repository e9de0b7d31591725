// The cluster services' checks: monitoring.targets (Prometheus scrapes every
// exporter the inventory implies), nfs.mounts (every client has every
// configured kernel mount, from the right server and export, and a file
// written through it on one client reads back on another) and nfs.export
// (the export itself answers each client over its network: a write on one
// client read back on another with a user-space NFS client, libnfs). Pure
// verdicts over what the tools printed, tested on captured outputs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/validate/check_result.h"
#include "controller/validate/tool_output.h"
#include "inventory/model.h"

namespace clusterctl {

// A scrape target Prometheus should have: its job and the node label the
// monitoring role's target files give it.
struct ExpectedTarget {
  std::string job;   // "node", "slurm", "dcgm"
  std::string node;  // "node03"
  bool operator<(const ExpectedTarget& o) const { return job != o.job ? job < o.job : node < o.node; }
};

// What the inventory and facts imply: every host's node exporter, the Slurm
// exporter on each controller, the DCGM exporter on hosts whose facts show
// NVIDIA GPUs where NVIDIA's repository is there (where the dcgm-exporter
// role runs: roles/dcgm-exporter.yaml).
std::vector<ExpectedTarget> ExpectedTargets(const Inventory& inventory,
                                            const std::map<std::string, nlohmann::json>& facts_by_host);

// Prometheus's URL on the monitoring host: prometheus_listen, or its
// address and prometheus_port (the monitoring role's defaults: 9090).
std::string PrometheusUrl(const Host& monitoring_host);

// Prometheus's scrape interval in seconds (prometheus_scrape_interval:
// "15s", "1m"; the monitoring role's default 15 s), at most 120.
int PrometheusScrapeSeconds(const Host& monitoring_host);

// The argv that asks Prometheus for every target's `up` (promtool, JSON).
std::vector<std::string> PrometheusUpArgv(const std::string& url);

// monitoring.targets: `up` (promtool query instant -o json URL up) has
// every expected target at 1. Down and missing targets are named (job,
// node, instance).
CheckResult EvaluatePrometheusTargets(const std::string& monitoring_host, const ToolOutput& up,
                                      const std::vector<ExpectedTarget>& expected);

// One client's kernel mount as findmnt shows it (findmnt -n -o SOURCE,FSTYPE --mountpoint PATH).
struct NfsMountProbe {
  std::string path;             // the mount point
  std::string expected_source;  // "10.1.0.11:/home"
  ToolOutput findmnt;
};

// nfs.mounts on one client: every mount present, NFS, from the expected
// source; `kernel_client` false (the kernel has no NFS client) fails with
// that reason. `round_trip` is the write/read through the mount (empty:
// not tried, the mounts being wrong).
CheckResult EvaluateNfsMounts(const std::string& host, bool kernel_client, const std::vector<NfsMountProbe>& mounts,
                              const std::string& round_trip_problem, bool round_trip_tried);

// One user-space round trip: `writer` wrote `token` to `url`, `reader`
// read it back (empty: no other client mounts `source`, "addr:/export").
// `external`: the server is outside the inventory (nfs_external_mounts),
// so nothing made its .clusterctl-validate directory but its own admin.
struct NfsRoundTrip {
  std::string writer, reader, url, token;
  ToolOutput write, read;
  std::string source;
  bool external = false;
};

// nfs.export for one client (the writer) and one export: its write and the
// other client's read back of the same bytes.
CheckResult EvaluateNfsExport(const std::string& host, const NfsRoundTrip& trip);

// nfs.export for one client over every export it mounts (the cluster's and
// outside ones): the first that does not pass, else a pass naming them all.
CheckResult EvaluateNfsExports(const std::string& host, const std::vector<NfsRoundTrip>& trips);

}  // namespace clusterctl
