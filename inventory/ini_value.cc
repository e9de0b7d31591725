#include "inventory/ini_value.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/strings.h"

namespace clusterctl {
namespace {

bool IsQuoted(std::string_view text) {
  return text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front();
}

std::optional<bool> IniBool(std::string_view text) {
  const std::string lower = AsciiLower(text);
  if (lower == "true" || lower == "yes") return true;
  if (lower == "false" || lower == "no") return false;
  return std::nullopt;
}

std::optional<long long> DecimalInteger(std::string_view text) {
  std::string_view digits = !text.empty() && text[0] == '-' ? text.substr(1) : text;
  if (digits.empty() || digits.size() > 19 || (digits[0] == '0' && digits.size() > 1)) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  errno = 0;
  const std::string copy(text);
  long long value = std::strtoll(copy.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace

nlohmann::json IniValue(std::string_view raw) {
  std::string_view text = Trim(raw);
  if (IsQuoted(text)) return std::string(text.substr(1, text.size() - 2));
  if (std::optional<bool> flag = IniBool(text)) return *flag;
  if (std::optional<long long> integer = DecimalInteger(text)) return *integer;
  return std::string(text);
}

}  // namespace clusterctl
