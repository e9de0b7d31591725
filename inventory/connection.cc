#include "inventory/connection.h"

#include "inventory/address.h"

namespace clusterctl {

const char* ToString(Become become) { return become == Become::kSudo ? "sudo" : "none"; }

const char* ToString(HostKeyPolicy policy) {
  return policy == HostKeyPolicy::kStrict ? "strict" : "accept-new";
}

std::string JumpHost::ToString() const {
  return (user.empty() ? "" : user + "@") + host + ":" + std::to_string(port);
}

nlohmann::json ConnectionSettings::ToJson() const {
  nlohmann::json j = {{"user", user},
                      {"port", port},
                      {"key_file", key_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(key_file)},
                      {"become", clusterctl::ToString(EffectiveBecome())},
                      {"host_key_policy", clusterctl::ToString(host_key_policy)},
                      {"connect_timeout", connect_timeout_s}};
  j["jump_host"] = jump_host ? nlohmann::json(jump_host->ToString()) : nlohmann::json(nullptr);
  return j;
}

void ConnectionOverrides::ApplyTo(ConnectionSettings& settings) const {
  if (user) settings.user = *user;
  if (port) settings.port = *port;
  if (key_file) settings.key_file = *key_file;
  if (become) settings.become = *become;
  if (jump_host) settings.jump_host = *jump_host;
  if (host_key_policy) settings.host_key_policy = *host_key_policy;
  if (connect_timeout_s) settings.connect_timeout_s = *connect_timeout_s;
}

bool IsUserName(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.';
    if (!ok) return false;
  }
  return s[0] != '-';
}

std::optional<std::string> ParseJumpHost(const std::string& text, JumpHost& out) {
  std::string rest = text;
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    out.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (out.user.empty()) return "empty user before '@'";
    if (!IsUserName(out.user)) return "user '" + out.user + "' is not a valid user name";
  }
  // "[v6]:port" or "host:port"; a bare IPv6 address has several colons.
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) return "'[' without ']'";
    std::string after = rest.substr(close + 1);
    out.host = rest.substr(1, close - 1);
    rest = after.empty() ? "" : after;
    if (!rest.empty() && rest[0] != ':') return "unexpected text after ']'";
    if (!rest.empty()) rest = rest.substr(1);
  } else if (std::count(rest.begin(), rest.end(), ':') == 1) {
    size_t colon = rest.find(':');
    out.host = rest.substr(0, colon);
    rest = rest.substr(colon + 1);
  } else {
    out.host = rest;
    rest.clear();
  }
  if (!rest.empty()) {
    if (rest.size() > 5 || rest.find_first_not_of("0123456789") != std::string::npos) {
      return "port '" + rest + "' is not a number";
    }
    out.port = std::stoi(rest);
    if (out.port < 1 || out.port > 65535) return "port " + rest + " is outside 1-65535";
  }
  if (std::optional<std::string> problem = CheckHostAddress(out.host)) return *problem;
  return std::nullopt;
}

}  // namespace clusterctl
