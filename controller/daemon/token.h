// The daemon's bearer token: 43 random characters ([A-Za-z0-9], 256 bits)
// generated at the first start and kept as the secret `daemon_token` in the
// state's secrets/ (mode 0600, owner checked like every secret). It is
// never logged or printed, except by `clusterctl serve INV --print-token`.
#pragma once

#include <string>

#include "common/status.h"
#include "controller/state/secret_vault.h"

namespace clusterctl {

inline constexpr char kDaemonTokenSecret[] = "daemon_token";
// The role monitoring declares the same secret (its Prometheus job reads the
// token): services_roles_test keeps the two declarations equal.
inline const SecretSpec kDaemonTokenSpec{SecretSpec::Kind::kPassword, 43};

// The stored token, generated and stored first when there is none.
Result<std::string> LoadOrCreateDaemonToken(const std::string& secrets_dir);

// True when `authorization` is "Bearer <token>". Compares in time that does
// not depend on where the first wrong character is.
bool BearerMatches(const std::string& authorization, const std::string& token);

}  // namespace clusterctl
