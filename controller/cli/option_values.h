// CLI11 adapters for option values with a syntax of their own, so each
// syntax is read by one parser whatever the flag.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace clusterctl {

// Turns a duration ("90", "60s", "5m", "1h30m": common/duration_text.h)
// from `min` to `max` seconds into its number of seconds before the
// option's integer is read; anything else is a usage error naming what is
// accepted (or the range).
CLI::Validator DurationSeconds(int64_t min, int64_t max);

}  // namespace clusterctl
