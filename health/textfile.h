// The health run's results for Prometheus, through the node exporter's
// textfile collector (docs/health.md): each configured check's result
// (1 passed or skipped, 0 failed), whether the health check has the node
// drained, and when it last ran. Check names are the registry's ([a-z0-9._]),
// so they need no escaping as label values.
#pragma once

#include <string>

#include "health/node_health.h"

namespace clusterctl::health {

std::string TextfileMetrics(const NodeHealth& health, bool drained_by_health, double now_seconds);

}  // namespace clusterctl::health
