#include "health/textfile.h"

#include <cstdio>

namespace clusterctl::health {

std::string TextfileMetrics(const NodeHealth& health, bool drained_by_health, double now_seconds) {
  std::string text =
      "# HELP clusterctl_health_check_passed 1 when the check passed (or does not apply) at the last health run, 0 when it failed\n"
      "# TYPE clusterctl_health_check_passed gauge\n";
  for (const CheckResult& r : health.results) {
    text += "clusterctl_health_check_passed{check=\"" + r.check + "\"} " + (r.outcome == CheckOutcome::kFail ? "0" : "1") + "\n";
  }
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%.3f", now_seconds);
  text += "# HELP clusterctl_health_drained 1 when the node is drained by the health check\n"
          "# TYPE clusterctl_health_drained gauge\n"
          "clusterctl_health_drained " + std::string(drained_by_health ? "1" : "0") + "\n" +
          "# HELP clusterctl_health_last_run_timestamp_seconds when the health check last ran\n"
          "# TYPE clusterctl_health_last_run_timestamp_seconds gauge\n"
          "clusterctl_health_last_run_timestamp_seconds " + stamp + "\n";
  return text;
}

}  // namespace clusterctl::health
