// The daemon's log line for a job that ended: what an admin reading the
// journal needs (counts, which hosts), bounded whatever the cluster's size
// or the nodes' text. The whole summary is in the API (/api/v1/jobs) and the
// run's record, not in the log.
#pragma once

#include <string>
#include <vector>

#include "common/log.h"
#include "controller/daemon/jobs.h"

namespace clusterctl {

// Bytes one job line has at most (a cut ends in "...").
inline constexpr size_t kMaxJobLine = 400;

// "job 3: deploy ok: 12 hosts, 42 changed, 0 failed", "job 4: drift ok: 900
// hosts, 0 changed, 0 failed; drifted: gpu[001-017]", "job 5: validate
// failed: 10 pass, 2 fail, 0 skip; failed: reachable on node[01-02]
// (node01: connection refused)", "job 6: deploy failed: internal error: ...".
// One line of valid UTF-8: node text passes TerminalText (control
// characters and bytes that are not UTF-8 shown as \xNN).
std::string JobEndLine(const JobInfo& job);

// Error for a failed job, warning for a stopped one or a drift check that
// found drift, info otherwise.
LogLevel JobEndLevel(const JobInfo& job);

// `names` collapsed into ranges ("gpu[001-017],login"), cut to `max_bytes`.
std::string BoundedHostList(const std::vector<std::string>& names, size_t max_bytes);

// `text` on one line and valid UTF-8 (TerminalText), cut to `max_bytes`.
std::string BoundedText(const std::string& text, size_t max_bytes);

}  // namespace clusterctl
