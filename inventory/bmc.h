// How the controller reaches a host's BMC (its baseboard management
// controller) over IPMI-over-LAN: address, port, user, the file holding the
// password, the interface (IPMI 2.0 "lanplus" or 1.5 "lan") and the RMCP+
// cipher suite.
//
// The inventory sets these at three levels like `connection` (cluster `bmc`
// < group `bmc`, shallow to deep < host `bmc`, key by key); the address is
// the host's own. A host has a BMC when its resolved settings have an
// address; the loader then requires a user and a password file.
//
// The password itself is never held here: only the path of the file that
// holds it, which ipmitool reads (`-f FILE`), so it never reaches a command
// line, the output, the logs, a plan or the state.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl {

enum class BmcInterface { kLanplus, kLan };

const char* ToString(BmcInterface interface);

inline constexpr int kIpmiPort = 623;
// IPMI 2.0 user names are at most 16 bytes (ipmitool cuts longer ones).
inline constexpr size_t kMaxBmcUserLength = 16;
// RMCP+ cipher suites ipmitool's -C takes.
inline constexpr int kMaxCipherSuite = 17;

struct BmcSettings {
  std::string address;        // IP literal or DNS name; empty: the host has no BMC
  int port = kIpmiPort;
  std::string user;
  std::string password_file;  // absolute
  BmcInterface interface = BmcInterface::kLanplus;
  std::optional<int> cipher_suite;  // unset: ipmitool's default

  // Everything but the password (the file's path is not a secret).
  nlohmann::json ToJson() const;
};

struct BmcOverrides {
  std::optional<std::string> address;
  std::optional<int> port;
  std::optional<std::string> user;
  std::optional<std::string> password_file;
  std::optional<BmcInterface> interface;
  std::optional<int> cipher_suite;

  void ApplyTo(BmcSettings& settings) const;
};

// An IPMI user name: a login name (IsUserName) of at most 16 bytes.
bool IsBmcUserName(const std::string& name);

}  // namespace clusterctl
