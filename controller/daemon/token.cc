#include "controller/daemon/token.h"

#include "controller/state/secret_vault.h"

namespace clusterctl {

Result<std::string> LoadOrCreateDaemonToken(const std::string& secrets_dir) {
  SecretVault vault(secrets_dir, /*persist=*/true);
  CLUSTERCTL_RETURN_IF_ERROR(vault.Prepare({{kDaemonTokenSecret, kDaemonTokenSpec}}));
  return vault.values().at(kDaemonTokenSecret);
}

bool BearerMatches(const std::string& authorization, const std::string& token) {
  static constexpr std::string_view kScheme = "Bearer ";
  if (token.empty() || authorization.size() != kScheme.size() + token.size()) return false;
  unsigned char differ = 0;
  for (size_t i = 0; i < kScheme.size(); ++i) differ |= static_cast<unsigned char>(authorization[i] ^ kScheme[i]);
  for (size_t i = 0; i < token.size(); ++i) {
    differ |= static_cast<unsigned char>(authorization[kScheme.size() + i] ^ token[i]);
  }
  return differ == 0;
}

}  // namespace clusterctl
