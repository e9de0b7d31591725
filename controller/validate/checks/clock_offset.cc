// clock.offset: chrony synchronised and its offset within the limit
// (validate_clock_offset_max_ms).
#include <cmath>

#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/system_tools.h"

namespace clusterctl::checks {
namespace {

// A chronyd that runs but has not synchronised yet (just started, as right
// after a deploy) gets about 35 s to do so, as an admin would give it with
// chronyc burst and waitsync, before its state is judged. A burst asks for
// four measurements now: a client whose iburst went out before its server
// served (the head node's chrony configured later in the same deploy) would
// otherwise wait for its next poll, a minute or more, and need several to
// synchronise. The burst is asked again each round: one asked while an
// earlier burst runs is ignored, and one whose replies were all rejected
// would leave the client to its poll. It changes nothing but when chronyd
// measures. Still not synchronised, the settle prints what the client saw
// of its sources (reach, the NTP tests each reply passed, the packet
// counts), which the verdict keeps as evidence.
bool Synchronised(const ToolOutput& tracking) {
  auto parsed = ParseChronyTracking(tracking.out);
  return !parsed.ok() || parsed->leap_status == "Normal";
}

constexpr const char* kBurstAndWait = R"(for round in 1 2 3 4; do
  chronyc -a burst 4/4 >/dev/null 2>&1
  chronyc -n waitsync 5 0 0 2 >/dev/null 2>&1 && exit 0
done
echo "not synchronised after 4 bursts of measurements; chronyc sources, activity and ntpdata:"
chronyc -n sources 2>&1 | tail -n +3
chronyc -n activity 2>&1 | grep -E 'sources (online|offline)'
chronyc -n ntpdata 2>&1 | grep -E '^(Remote address|Leap status|Stratum|NTP tests|Total)'
exit 1)";

const ProbeSpec kChronyTracking{.id = "chronyc tracking",
                                .commands = {{"chronyc", "-n", "tracking"}},
                                .timeout_s = 15,
                                .settled = Synchronised,
                                .settle = {"sh", "-c", kBurstAndWait},
                                .settle_timeout_s = 50};

CheckResult Judge(const NodeView& v) {
  const std::string check = "clock.offset";
  const std::string& host = v.host();
  const ToolOutput& output = v.node.Output(kChronyTracking.id);
  const double max_ms = NumberVariable(v.vars, "validate_clock_offset_max_ms").value_or(100);
  std::string threshold = "<= " + FormatNumber(max_ms) + " ms";
  if (!output.started) return Fail(check, kNode, host, "chronyc is not installed: time synchronisation is not set up");
  auto tracking = ParseChronyTracking(output.out);
  if (tracking.ok() && !output.Succeeded()) tracking = Status::Unavailable("chronyc " + ExitDescription(output));
  if (!tracking.ok()) {
    std::string why = output.Both().find("Cannot talk to daemon") != std::string::npos
                          ? "chronyd is not running (chronyc cannot talk to it)"
                          : "chronyc tracking: " + tracking.status().message();
    return Fail(check, kNode, host, why, TailLines(output.Both()), "", threshold);
  }
  double offset_ms = std::fabs(tracking->offset_s) * 1000.0;
  std::string measured = FormatNumber(offset_ms) + " ms";
  if (offset_ms < 0.01) measured = FormatNumber(offset_ms * 1000.0) + " us";
  if (tracking->leap_status != "Normal") {
    std::vector<std::string> evidence = tracking->lines;
    for (std::string& line : TailLines(output.settle_out, 20)) evidence.push_back(std::move(line));
    return Fail(check, kNode, host, "clock not synchronised (Leap status: " + tracking->leap_status + ")",
                evidence, measured, threshold);
  }
  if (offset_ms > max_ms) {
    return Fail(check, kNode, host, "clock offset " + measured + " above " + FormatNumber(max_ms) + " ms",
                tracking->lines, measured, threshold);
  }
  return Pass(check, kNode, host, measured, threshold, "synchronised to " + tracking->reference);
}

const CheckRegistration kClockOffset({.name = "clock.offset",
                                      .scope = kNode,
                                      .summary = "chrony synchronised, offset within the limit",
                                      .rank = 20,
                                      .probes = {&kChronyTracking},
                                      .verdict = Judge,
                                      .variables = R"(
validate_clock_offset_max_ms:
  default: 100
  type: number
  minimum: 0
  description: largest |offset| from chrony's reference, in ms (clock.offset)
)"});

}  // namespace
}  // namespace clusterctl::checks
