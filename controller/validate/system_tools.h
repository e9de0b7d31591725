// Parsers for node-level tools the validation reads: `chronyc tracking`
// (the driver's kernel log lines: nvrm_log.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

struct ChronyTracking {
  std::string reference;    // "0AD54D0B (10.213.77.11)"
  int stratum = 0;
  double offset_s = 0;      // system clock minus NTP time: + fast, - slow
  std::string leap_status;  // "Normal", "Not synchronised", ...
  std::vector<std::string> lines;  // Reference ID, System time, Leap status lines
};

// An error for anything else, e.g. "506 Cannot talk to daemon" when chronyd
// is not running.
Result<ChronyTracking> ParseChronyTracking(std::string_view text);

}  // namespace clusterctl
