// Out-of-band power as the deploy uses it (issue 54): a node that does not
// come back from its reboot within the step's timeout is power-cycled
// through its BMC (kinds/reboot_kind.cc). The engine asks through this
// interface; the real implementation is controller/power's
// PowerCycleHost, the same ipmitool path as `clusterctl power`, run off
// the host's coroutine thread; unit tests give it a fake ipmitool
// (ProcessRunner).
#pragma once

#include <memory>

#include "controller/power/power_run.h"
#include "controller/ssh/ssh_session.h"  // Task

namespace clusterctl {

class NodePower {
 public:
  virtual ~NodePower() = default;
  // Power-cycles `host` through its BMC (PowerCycleHost: a power on when
  // the BMC reads off). REQUIRES: host.bmc. Never throws; the result says
  // what the BMC did or why it did not.
  virtual Task<PowerResult> Cycle(const Host& host) = 0;
};

// PowerCycleHost through `runner` on threads of its own (ipmitool blocks
// for seconds; a host's coroutine thread serves other hosts meanwhile).
// `runner` must outlive it.
std::unique_ptr<NodePower> MakeBmcNodePower(ProcessRunner& runner);

}  // namespace clusterctl
