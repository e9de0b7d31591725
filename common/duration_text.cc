#include "common/duration_text.h"

#include <cstdint>
#include <string>

namespace clusterctl {
namespace {

constexpr int64_t kMaxSeconds = INT32_MAX;
constexpr const char* kAccepted = "a number of seconds, or numbers with units s, m, h, d (90, 60s, 5m, 1h30m)";

// Seconds per unit letter; 0 for an unknown unit.
int64_t UnitSeconds(char unit) {
  switch (unit) {
    case 's': return 1;
    case 'm': return 60;
    case 'h': return 3600;
    case 'd': return 86400;
    default: return 0;
  }
}

Status Invalid(std::string_view text, const std::string& why) {
  return Status::InvalidArgument("'" + std::string(text) + "' is not a duration: " + why + "; use " + kAccepted);
}

}  // namespace

Result<int64_t> ParseDurationSeconds(std::string_view text) {
  if (text.empty()) return Invalid(text, "it is empty");
  if (text[0] == '-' || text[0] == '+') return Invalid(text, "it has a sign");
  int64_t total = 0;
  size_t at = 0;
  while (at < text.size()) {
    int64_t number = 0;
    const size_t digits_from = at;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
      number = number * 10 + (text[at] - '0');
      if (number > kMaxSeconds) return Invalid(text, "it is too long");
    }
    if (at == digits_from) return Invalid(text, "a unit without a number before it");
    if (at == text.size() && digits_from == 0) return number;  // a plain number: seconds
    if (at == text.size()) return Invalid(text, "the last number has no unit");
    const int64_t unit = UnitSeconds(text[at]);
    if (unit == 0) return Invalid(text, std::string("unknown unit '") + text[at] + "'");
    ++at;
    if (number > (kMaxSeconds - total) / unit) return Invalid(text, "it is too long");
    total += number * unit;
  }
  return total;
}

std::string FormatDurationSeconds(int64_t seconds) {
  if (seconds == 0) return "0s";
  std::string text;
  for (char unit : {'d', 'h', 'm', 's'}) {
    const int64_t size = UnitSeconds(unit);
    if (seconds >= size) text += std::to_string(seconds / size) + unit;
    seconds %= size;
  }
  return text;
}

}  // namespace clusterctl
