#include "controller/daemon/access.h"

#include "common/json_text.h"

namespace clusterctl {
namespace {

HttpResponse Unauthorized() {
  HttpResponse denied{401, "application/json", JsonText(nlohmann::json{{"error", "unauthorized"}}) + "\n", {}};
  denied.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"clusterctl\"");
  return denied;
}

HttpResponse Forbidden(const std::string& message, TokenScope have, TokenScope needed) {
  const nlohmann::json body = {{"error", message}, {"scope", ToString(have)}, {"scope_needed", ToString(needed)}};
  HttpResponse denied{403, "application/json", JsonText(body) + "\n", {}};
  denied.headers.emplace_back("WWW-Authenticate", std::string("Bearer realm=\"clusterctl\", error=\"insufficient_scope\", "
                                                              "scope=\"") + ToString(needed) + "\"");
  return denied;
}

}  // namespace

TokenScope ScopeNeeded(const HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") return TokenScope::kAdmin;
  return request.path == "/metrics" ? TokenScope::kMetrics : TokenScope::kRead;
}

std::optional<HttpResponse> Refusal(const HttpRequest& request, const DaemonTokens& tokens, TokenScope needed) {
  const std::optional<TokenScope> have = BearerScope(request.authorization, tokens);
  if (!have) return Unauthorized();
  if (*have >= needed) return std::nullopt;
  return Forbidden(std::string("forbidden: ") + request.method.substr(0, 16) + " " + request.path.substr(0, 200) +
                       " needs a token of scope " + ToString(needed) +
                       (needed == TokenScope::kAdmin ? "" : " or admin") + "; this one has scope " + ToString(*have),
                   *have, needed);
}

std::optional<HttpResponse> MetricsListenerRefusal(const HttpRequest& request, const DaemonTokens& tokens) {
  const std::optional<TokenScope> have = BearerScope(request.authorization, tokens);
  if (!have) return Unauthorized();
  if (*have == TokenScope::kMetrics) return std::nullopt;
  return Forbidden(std::string("forbidden: the metrics listener takes the metrics token only; a ") + ToString(*have) +
                       " token must not cross the network in clear (rotate it: clusterctl serve INVENTORY "
                       "--rotate-token " + ToString(*have) + ")",
                   *have, TokenScope::kMetrics);
}

}  // namespace clusterctl
