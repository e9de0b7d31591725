// Durations as a user writes them on the command line: "90" (seconds, as
// before units were accepted), "90s", "5m", "1h", "2d", and sums of those
// written together ("1h30m"). One parser for every duration-valued flag.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace clusterctl {

// The duration in whole seconds. InvalidArgument, with a message that says
// what is accepted, for an empty text, a sign, an unknown or missing unit
// after a number that is not the whole text, or a total over ~68 years
// (INT32_MAX seconds: every caller stores seconds in an int).
Result<int64_t> ParseDurationSeconds(std::string_view text);

// `seconds` as the parser reads it back, largest units first: 5400 ->
// "1h30m", 90 -> "1m30s", 0 -> "0s". REQUIRES: seconds >= 0.
std::string FormatDurationSeconds(int64_t seconds);

}  // namespace clusterctl
