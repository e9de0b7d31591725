#include "controller/cli/option_values.h"

#include "common/duration_text.h"

namespace clusterctl {

CLI::Validator DurationSeconds(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) {
        Result<int64_t> seconds = ParseDurationSeconds(text);
        if (!seconds.ok()) return seconds.status().message();
        if (*seconds < min || *seconds > max) {
          return "'" + text + "' is out of range: from " + FormatDurationSeconds(min) + " to " +
                 FormatDurationSeconds(max);
        }
        text = std::to_string(*seconds);
        return std::string();
      },
      "", "DURATION");
}

}  // namespace clusterctl
