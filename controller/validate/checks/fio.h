// What the fio acceptance checks share (storage.fio: the node's scratch
// directory; storage.nfs_fio: through each NFS export with fio's nfs
// engine): fio installed, one sequential job's arguments, its JSON report
// read (--output-format=json, fio 3.x: jobs[0].<rw>.bw_bytes, the job's
// "error"), and the jobs' readings judged against their floors and peers
// (peer_judgement.h), one result per node.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "controller/validate/checks/acceptance.h"

namespace clusterctl::checks {

// test -x /usr/bin/fio (the acceptance-tools role installs it).
const ProbeSpec& FioInstalledProbe();

// fio's arguments for one time-based sequential job of `block_mib` MiB
// blocks over a `size_mib` file, `rw` ("write", "read") for `seconds`,
// `extra` options (an engine's) before its JSON report.
Argv FioArgv(const std::string& filename, const std::string& rw, long long size_mib, long long block_mib, int seconds,
             const Argv& extra);

// fio's bandwidth of `rw` in bytes per second from its JSON report; the
// job's error or no report as the problem. fio may print warnings before
// its JSON ("fio: ..."): the report starts at the first '{'.
Result<double> FioBytesPerSecond(const std::string& text, const std::string& rw);

// The readings of one check's fio jobs, judged together: a job's report
// is a reading of its part (a direction, an export's direction) in MB/s,
// compared with the same part's peers; no reading is that part's failure.
class FioReadings {
 public:
  explicit FioReadings(const char* check) : check_(check) {}

  // One job of `node`: its output (or why it did not run), read for `rw`
  // and filed under `part`, with its floor and outlier percent variables.
  void Add(const NodeView& view, const std::string& part, const std::string& rw, const Result<ToolOutput>& output,
           const char* floor_variable, const char* percent_variable);
  // A part that was not measured (the deadline): its failure.
  void NotMeasured(const std::string& node, const std::string& part, const std::string& why);
  // One result per node: every part's reading against its floor and peers.
  std::vector<CheckResult> Results() const;

 private:
  const char* check_;
  std::vector<PartResult> failed_;
  std::vector<PeerReading> readings_;
  std::vector<std::pair<std::string, std::string>> keys_;  // node, part of each reading
};

}  // namespace clusterctl::checks
