#include "controller/daemon/token.h"

#include "controller/state/secret_vault.h"

namespace clusterctl {
namespace {

constexpr TokenScope kScopes[] = {TokenScope::kMetrics, TokenScope::kRead, TokenScope::kAdmin};

std::map<std::string, SecretSpec> TokenSpecs() {
  std::map<std::string, SecretSpec> specs;
  for (TokenScope scope : kScopes) specs.emplace(TokenSecretName(scope), kDaemonTokenSpec);
  return specs;
}

}  // namespace

const char* ToString(TokenScope scope) {
  switch (scope) {
    case TokenScope::kMetrics: return "metrics";
    case TokenScope::kRead: return "read";
    case TokenScope::kAdmin: return "admin";
  }
  return "admin";
}

std::optional<TokenScope> ParseTokenScope(const std::string& text) {
  for (TokenScope scope : kScopes) {
    if (text == ToString(scope)) return scope;
  }
  return std::nullopt;
}

const char* TokenSecretName(TokenScope scope) {
  switch (scope) {
    case TokenScope::kMetrics: return kDaemonMetricsTokenSecret;
    case TokenScope::kRead: return kDaemonReadTokenSecret;
    case TokenScope::kAdmin: return kDaemonTokenSecret;
  }
  return kDaemonTokenSecret;
}

const std::string& DaemonTokens::Of(TokenScope scope) const {
  return scope == TokenScope::kMetrics ? metrics : scope == TokenScope::kRead ? read : admin;
}

Result<DaemonTokens> LoadOrCreateDaemonTokens(const std::string& secrets_dir) {
  SecretVault vault(secrets_dir, /*persist=*/true);
  CLUSTERCTL_RETURN_IF_ERROR(vault.Prepare(TokenSpecs()));
  DaemonTokens tokens;
  tokens.metrics = vault.values().at(kDaemonMetricsTokenSecret);
  tokens.read = vault.values().at(kDaemonReadTokenSecret);
  tokens.admin = vault.values().at(kDaemonTokenSecret);
  return tokens;
}

Result<std::string> RotateDaemonToken(const std::string& secrets_dir, TokenScope scope) {
  SecretVault vault(secrets_dir, /*persist=*/true);
  const std::string name = TokenSecretName(scope);
  CLUSTERCTL_RETURN_IF_ERROR(vault.Prepare({{name, kDaemonTokenSpec}}, {}, {name}));
  return vault.values().at(name);
}

std::optional<TokenScope> BearerScope(const std::string& authorization, const DaemonTokens& tokens) {
  std::optional<TokenScope> found;
  for (TokenScope scope : kScopes) {  // no early exit: every token is compared
    if (BearerMatches(authorization, tokens.Of(scope))) found = scope;
  }
  return found;
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

Status TokenBook::Reload() {
  auto loaded = LoadOrCreateDaemonTokens(secrets_dir_);
  if (!loaded.ok()) return loaded.status();
  std::lock_guard<std::mutex> lock(mutex_);
  tokens_ = std::move(loaded).value();
  return Status::Ok();
}

DaemonTokens TokenBook::Get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tokens_;
}

}  // namespace clusterctl
