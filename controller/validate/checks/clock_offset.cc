// clock.offset: chrony synchronised and its offset within the limit.
#include "controller/validate/checks/common.h"
#include "controller/validate/system_tools.h"

namespace clusterctl::checks {
namespace {

// A chronyd that runs but has not synchronised yet (just started, as right
// after a deploy) gets up to 30 s to do so, as an admin would give it with
// chronyc burst and waitsync, before its state is judged. The burst asks
// for four measurements now: a client whose iburst went out before its
// server served (the head node's chrony configured later in the same
// deploy) would otherwise wait for its next poll, a minute or more, and
// need several to synchronise. It changes nothing but when chronyd measures.
bool Synchronised(const ToolOutput& tracking) {
  auto parsed = ParseChronyTracking(tracking.out);
  return !parsed.ok() || parsed->leap_status == "Normal";
}

const ProbeSpec kChronyTracking{.id = "chronyc tracking",
                                .commands = {{"chronyc", "-n", "tracking"}},
                                .timeout_s = 15,
                                .settled = Synchronised,
                                .settle = {"sh", "-c",
                                           "chronyc -a burst 4/4 >/dev/null 2>&1; exec chronyc -n waitsync 15 0 0 2"},
                                .settle_timeout_s = 40};

CheckResult Judge(const NodeView& v) { return EvaluateClock(v.host(), v.node.Output(kChronyTracking.id), v.thresholds); }

const CheckRegistration kClockOffset({.name = "clock.offset",
                                      .scope = kNode,
                                      .summary = "chrony synchronised, offset within the limit",
                                      .rank = 20,
                                      .probes = {&kChronyTracking},
                                      .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
