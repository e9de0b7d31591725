// Which token scope each request needs (docs/api.md, "Tokens"), and the
// answer to a request whose token does not give it:
//  - no token, or one that is none of the daemon's: 401, the same body
//    whatever the path (no hint which paths exist);
//  - a valid token of too small a scope: 403 naming the scope the request
//    needs and the one the token has.
// The liveness probe and the page's code need none; Api decides those first.
#pragma once

#include <optional>

#include "controller/daemon/http_server.h"
#include "controller/daemon/token.h"

namespace clusterctl {

// GET or HEAD of /metrics: metrics; any other GET or HEAD: read; any other
// method (the jobs, stop): admin.
TokenScope ScopeNeeded(const HttpRequest& request);

// nullopt when `request` carries a token of scope `needed` or larger;
// otherwise the 401 or 403 response.
std::optional<HttpResponse> Refusal(const HttpRequest& request, const DaemonTokens& tokens, TokenScope needed);

// The metrics listener (`serve --metrics-listen`) serves /metrics to the
// metrics token only: a read or admin token sent there crossed the network
// in clear and is refused (403), so the mistake is noticed at once.
std::optional<HttpResponse> MetricsListenerRefusal(const HttpRequest& request, const DaemonTokens& tokens);

}  // namespace clusterctl
