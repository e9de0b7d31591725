// The state's drift marks (hosts.drifted: `clusterctl status` says "drift
// detected", the daemon's page "drifted"), kept by the run layer when a run
// completes, for the command line and the daemon alike:
//  - a drift check (RunKind::kDrift: deploy --verify in check mode) sets each
//    host it checked to whether any step would change;
//  - a deploy that checked every step of every role on its hosts
//    (DeploymentOptions::VerifiesEverything) clears the mark of each host it
//    left ok: whatever had drifted was put back;
//  - any other run (a plan, --roles, --tags, a host that failed or was not
//    reached) leaves the marks as they are.
// The marks are written when the run completes, after every host: a
// controller that dies mid-run leaves the marks of the run before.
#pragma once

#include <string>
#include <vector>

#include "controller/engine/deploy_run.h"
#include "controller/run/run_session.h"
#include "controller/state/host_records.h"

namespace clusterctl {

// Writes the marks `result` decides (above); a problem writing one is
// returned, naming the host ("" problems: all written or none to write).
std::vector<std::string> RecordDriftMarks(HostRecords& hosts, RunKind kind, const DeploymentOptions& options,
                                          const DeploymentResult& result);

}  // namespace clusterctl
