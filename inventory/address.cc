#include "inventory/address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

#include "common/strings.h"

namespace clusterctl {
namespace {

bool IsIpv4(const std::string& text) {
  in_addr a;
  return inet_pton(AF_INET, text.c_str(), &a) == 1;
}

bool IsIpv6(const std::string& text) {
  in6_addr a;
  return inet_pton(AF_INET6, text.c_str(), &a) == 1;
}

bool LooksNumeric(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.';
  });
}

}  // namespace

bool IsIpLiteral(std::string_view text) {
  std::string s(text);
  return IsIpv4(s) || IsIpv6(s);
}

std::optional<std::string> CheckHostName(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.size() > 253) return "longer than 253 characters";
  size_t label_start = 0;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '.') {
      size_t length = i - label_start;
      if (length == 0) return "empty label (two dots in a row, or a leading/trailing dot)";
      if (length > 63) return "a label is longer than 63 characters";
      label_start = i + 1;
      continue;
    }
    char c = name[i];
    bool allowed = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    if (!allowed) return std::string("character '") + c + "' is not allowed (letters, digits, '-', '_', '.')";
    if (i == label_start && (c == '-' || c == '_')) return "a label must start with a letter or digit";
  }
  return std::nullopt;
}

std::optional<std::string> CheckHostAddress(std::string_view address) {
  std::string text(address);
  if (text.empty()) return "empty address";
  if (text.find(':') != std::string::npos) {
    if (IsIpv6(text)) return std::nullopt;
    return "not a valid IPv6 address";
  }
  if (LooksNumeric(text)) {
    if (IsIpv4(text)) return std::nullopt;
    return "not a valid IPv4 address";
  }
  if (std::optional<std::string> problem = CheckHostName(text)) return "not a valid host name: " + *problem;
  return std::nullopt;
}

std::optional<std::string> CheckInterfaceAddress(std::string_view address) {
  std::string text(address);
  size_t slash = text.find('/');
  std::string ip = text.substr(0, slash);
  bool v6 = ip.find(':') != std::string::npos;
  if (!(v6 ? IsIpv6(ip) : IsIpv4(ip))) return "'" + ip + "' is not a valid IP address";
  if (slash == std::string::npos) return std::nullopt;
  std::string prefix = text.substr(slash + 1);
  const int max_prefix = v6 ? 128 : 32;
  if (prefix.empty() || prefix.size() > 3 ||
      !std::all_of(prefix.begin(), prefix.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      std::stoi(prefix) > max_prefix) {
    return "prefix length '/" + prefix + "' must be 0-" + std::to_string(max_prefix);
  }
  return std::nullopt;
}

std::optional<IpoibName> ParseIpoibName(std::string_view name) {
  static const std::regex kIpoib(R"(^(ib[0-9]+)(?:\.([0-9a-fA-F]{4}))?$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(name.begin(), name.end(), m, kIpoib)) return std::nullopt;
  return IpoibName{m[1].str(), m[2].matched ? "0x" + AsciiLower(m[2].str()) : ""};
}

}  // namespace clusterctl
