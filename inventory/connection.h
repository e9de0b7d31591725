// How the controller reaches a host: SSH user, port, key, privilege
// escalation, jump host and host-key policy.
//
// The inventory sets these at three levels (cluster `connection`, group
// `connection`, host `connection`); a ConnectionOverrides holds what one level
// sets and ApplyTo() layers it on the resolved settings.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl {

enum class Become { kNone, kSudo };
enum class HostKeyPolicy { kStrict, kAcceptNew };

const char* ToString(Become become);
const char* ToString(HostKeyPolicy policy);

struct JumpHost {
  std::string user;  // empty: same user as the target
  std::string host;
  int port = 22;

  std::string ToString() const;  // "user@host:port"
};

struct ConnectionSettings {
  std::string user = "root";
  int port = 22;
  std::string key_file;  // absolute; empty means ssh-agent and ~/.ssh default identities
  // Unset: sudo when user is not root, none when it is.
  std::optional<Become> become;
  std::optional<JumpHost> jump_host;
  HostKeyPolicy host_key_policy = HostKeyPolicy::kAcceptNew;
  int connect_timeout_s = 10;

  Become EffectiveBecome() const {
    return become.value_or(user == "root" ? Become::kNone : Become::kSudo);
  }
  nlohmann::json ToJson() const;
};

struct ConnectionOverrides {
  std::optional<std::string> user;
  std::optional<int> port;
  std::optional<std::string> key_file;
  std::optional<Become> become;
  std::optional<std::optional<JumpHost>> jump_host;  // set to nullopt: "no jump host here"
  std::optional<HostKeyPolicy> host_key_policy;
  std::optional<int> connect_timeout_s;

  void ApplyTo(ConnectionSettings& settings) const;
};

// Parses "[user@]host[:port]"; returns an explanation on error.
std::optional<std::string> ParseJumpHost(const std::string& text, JumpHost& out);

// A login name: letters, digits, '_', '-', '.', at most 32, not starting
// with '-' (it reaches ssh and sudo; nothing else may).
bool IsUserName(const std::string& name);

}  // namespace clusterctl
