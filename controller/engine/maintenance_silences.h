// Maintenance silences (issue 38, "Maintenance does not page anyone"):
// while the deploy takes a node down on purpose (a reboot it carries out),
// the node's alerts reach nobody. The engine opens a silence before the
// reboot and ends it when the node's run is over (back, and its remaining
// steps checked); each silence also ends by itself at the time it was
// opened with, so one a dead controller left behind does not hide the node
// for long. Monitoring never blocks maintenance: a silence that cannot be
// opened is a note, and the reboot goes ahead.
//
// The real implementation speaks Alertmanager's API (alertmanager_silences.h);
// unit tests give the deploy a fake.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "controller/engine/wait_report.h"
#include "controller/ssh/ssh_session.h"  // Task

namespace clusterctl {

class MaintenanceSilences {
 public:
  virtual ~MaintenanceSilences() = default;
  // Silences the alerts of `host` (its `node` label) until `ends_at_ms`
  // (Unix time, ms) at the latest. The silence's id, or why there is none.
  virtual Task<Result<std::string>> Open(const std::string& host, const std::string& comment, int64_t ends_at_ms) = 0;
  // Ends the silence `id` of `host`, opened at `opened_at_ms`. An
  // implementation may first wait a bounded time for the node to be seen
  // healthy (a node just back may be starting its exporters, and its
  // alerts fire until the next scrape), telling `wait` what it waits on as
  // it polls (WaitReport::Still) and, at its bound, what was still failing
  // (WaitReport::GaveUp: the silence ends all the same).
  virtual Task<Status> Close(const std::string& host, const std::string& id, int64_t opened_at_ms,
                             WaitReport& wait) = 0;
};

}  // namespace clusterctl
