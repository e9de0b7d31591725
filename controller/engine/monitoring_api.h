// Alertmanager's HTTP API v2 and Prometheus's query API as the maintenance
// silences use them: the requests' targets and bodies, and the readings of
// their replies. Pure. A reply is hostile input: anything broken or
// unexpected is an error with a message, never an exception.
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
// Prometheus's GET /api/v1/query target for what still keeps a node's
// maintenance silence open: a target of the node not scraped since
// `since_s` (Unix seconds: the node is back), or down, or an alert of the
// node (pending or firing) that was not active `opened_ago_s` seconds ago,
// when the silence opened (an alert standing before the maintenance, such
// as a missing mount, does not hold it). An empty answer: the node is seen
// healthy again.
std::string MaintenanceHoldsTarget(const std::string& host, int64_t since_s, int64_t opened_ago_s);
// How many series the instant query's reply holds (a vector result).
Result<size_t> ReadVectorSize(std::string_view reply);
// RFC 3339 in UTC with milliseconds: 2026-11-26T22:48:04.123Z.
std::string Rfc3339(int64_t unix_ms);

}  // namespace clusterctl
