// Alertmanager's HTTP API v2 as the maintenance silences use it: the
// requests' targets and bodies, and the readings of its replies. Pure. A
// reply is hostile input: anything broken or unexpected is an error with
// a message, never an exception.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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
// GET's target for the node's alerts that fire (silenced ones included).
std::string NodeAlertsTarget(const std::string& cluster, const std::string& host);
// How many alerts GET /api/v2/alerts's reply lists (each firing: active,
// silenced or not yet processed).
Result<size_t> ReadFiringAlerts(std::string_view reply);
// RFC 3339 in UTC with milliseconds: 2026-11-26T22:48:04.123Z.
std::string Rfc3339(int64_t unix_ms);

}  // namespace clusterctl
