#include "controller/ssh/ssh_identification.h"

#include <cstdio>

namespace clusterctl {
namespace {

constexpr std::string_view kPrefix = "SSH-";
constexpr size_t kMaxQuoted = 60;

std::string Printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
    if (out.size() >= kMaxQuoted) return out.substr(0, kMaxQuoted) + "...";
  }
  return out;
}

}  // namespace

std::optional<std::string> NotAnSshServer(std::string_view first_bytes) {
  const size_t compared = std::min(first_bytes.size(), kPrefix.size());
  if (first_bytes.substr(0, compared) == kPrefix.substr(0, compared)) return std::nullopt;
  if (first_bytes.find("\nSSH-") != std::string_view::npos) return std::nullopt;
  std::string_view line = first_bytes.substr(0, first_bytes.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return "not an SSH server (it said: '" + Printable(line) + "')";
}

}  // namespace clusterctl
