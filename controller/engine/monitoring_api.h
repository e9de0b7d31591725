// Alertmanager's HTTP API v2 and Prometheus's query API as the maintenance
// silences use them: the requests' targets and bodies, and the readings of
// their replies. Pure. A reply is hostile input: anything broken or
// unexpected is an error with a message, never an exception.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

// One silence of a node's alerts: the matchers cluster=<cluster> (the
// label Prometheus adds to every alert of this cluster) and node=<host>.
struct SilenceRequest {
  std::string cluster;
  std::string host;
  std::string comment;
  int64_t starts_ms = 0;  // Unix time
  int64_t ends_ms = 0;
};

// POST /api/v2/silences's body.
std::string SilenceBody(const SilenceRequest& request);
// The id from POST /api/v2/silences's reply ({"silenceID": "..."}): a
// UUID-like word (it goes into DELETE /api/v2/silence/<id>).
Result<std::string> ReadSilenceId(std::string_view reply);
// What Prometheus sees of a node when its maintenance silence opens: its
// targets by name ("JOB (INSTANCE)"), up or down, and its active alerts
// (pending or firing) by name.
struct NodeHealth {
  std::set<std::string> targets_up, targets_down, alerts;
};
// Prometheus's GET /api/v1/query target for a node's health:
// up{node=...} or ALERTS{node=...}.
std::string NodeHealthTarget(const std::string& host);
Result<NodeHealth> ReadNodeHealth(std::string_view reply);

// A series of the node that is not healthy now: a target of the node down
// or not scraped since `since_s` (Unix seconds: the node is back), or an
// active alert of the node.
struct Unhealthy {
  enum class Kind { kTargetDown, kTargetNotScraped, kAlert };
  Kind kind = Kind::kAlert;
  std::string name;  // a target's "JOB (INSTANCE)", an alert's name
};
// Prometheus's GET /api/v1/query target for what of a node is not healthy.
std::string UnhealthyTarget(const std::string& host, int64_t since_s);
Result<std::vector<Unhealthy>> ReadUnhealthy(std::string_view reply);

// What of `now` holds the node's maintenance silence, in words ("node
// (10.0.0.2:9100) down", "alert NodeDown"): what the maintenance may have
// broken, not what was failing or absent before it. A target holds only if
// it was up when the silence opened, an alert only if it was not active
// then. Without `before` (Prometheus could not be asked then) or with no
// target of the node up then (the node was not monitored yet: a first
// deploy brings up Prometheus and its targets in the same run), nothing
// holds.
bool AnythingCanHold(const std::optional<NodeHealth>& before);
std::vector<std::string> StillHolding(const std::optional<NodeHealth>& before, const std::vector<Unhealthy>& now);
// RFC 3339 in UTC with milliseconds: 2026-11-26T22:48:04.123Z.
std::string Rfc3339(int64_t unix_ms);

}  // namespace clusterctl
