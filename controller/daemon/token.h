// The daemon's bearer tokens, one per scope (docs/api.md, "Tokens"):
//
//   metrics  GET /metrics only: what Prometheus holds;
//   read     every GET of the API, and /metrics;
//   admin    everything: the jobs (deploy, plan, validate, drift-check) and stop.
//
// Each is 43 random characters ([A-Za-z0-9], 256 bits) generated at the first
// start and kept as its own secret in the state's secrets/ (mode 0600, owner
// checked like every secret): `daemon_token` (admin: the name of the single
// token of earlier versions, so an existing token stays the admin token),
// `daemon_read_token` and `daemon_metrics_token`. One is rotated alone
// (`clusterctl serve INV --rotate-token SCOPE`, or `deploy --rotate-secret`
// of the metrics token, which the role monitoring declares); the others stay
// valid. A token is never logged or printed, except by
// `clusterctl serve INV --print-token [--scope SCOPE]`.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "common/status.h"
#include "controller/state/secret_vault.h"

namespace clusterctl {

// Ordered: a scope allows everything a smaller one does.
enum class TokenScope { kMetrics = 0, kRead = 1, kAdmin = 2 };

const char* ToString(TokenScope scope);  // "metrics", "read", "admin"
std::optional<TokenScope> ParseTokenScope(const std::string& text);
// The secret (and file name under secrets/) holding the scope's token.
const char* TokenSecretName(TokenScope scope);

inline constexpr char kDaemonTokenSecret[] = "daemon_token";  // the admin token
inline constexpr char kDaemonReadTokenSecret[] = "daemon_read_token";
inline constexpr char kDaemonMetricsTokenSecret[] = "daemon_metrics_token";
// The role monitoring declares the metrics token with the same spec (its
// Prometheus job reads it): services_roles_test keeps the two equal.
inline const SecretSpec kDaemonTokenSpec{SecretSpec::Kind::kPassword, 43};

struct DaemonTokens {
  std::string metrics, read, admin;
  const std::string& Of(TokenScope scope) const;
};

// The stored tokens, each generated and stored first when there is none.
Result<DaemonTokens> LoadOrCreateDaemonTokens(const std::string& secrets_dir);
// Replaces the scope's token with a new one; the others are untouched.
Result<std::string> RotateDaemonToken(const std::string& secrets_dir, TokenScope scope);

// The scope of the token `authorization` ("Bearer <token>") carries; nullopt
// for a missing or wrong one. Every token is compared whole, in time that
// does not depend on which one matches or where the first wrong character is.
std::optional<TokenScope> BearerScope(const std::string& authorization, const DaemonTokens& tokens);

// True when `authorization` is "Bearer <token>", compared in constant time.
bool BearerMatches(const std::string& authorization, const std::string& token);

// The tokens in service, re-read from secrets/ by Reload() (the serve loop
// calls it on every inventory poll), so a rotated token takes effect within
// seconds and the old one stops working. Thread-safe.
class TokenBook {
 public:
  explicit TokenBook(std::string secrets_dir) : secrets_dir_(std::move(secrets_dir)) {}
  // Loads (creating missing tokens). An error keeps the tokens in service.
  Status Reload();
  DaemonTokens Get() const;

 private:
  std::string secrets_dir_;
  mutable std::mutex mutex_;
  DaemonTokens tokens_;
};

}  // namespace clusterctl
