// What a health run does to the node in Slurm (docs/health.md): the shared
// decision of controller/validate/slurm_drain.h as the health check's
// (kHealthDrains: reasons start "clusterctl: "); a node acceptance or an
// admin drained is left alone.
#pragma once

#include <string>
#include <vector>

#include "controller/validate/slurm_drain.h"
#include "health/node_health.h"

namespace clusterctl::health {

inline constexpr std::string_view kReasonPrefix = kHealthDrains.prefix;
constexpr size_t kReasonMax = kDrainReasonMax;

inline std::string DrainReason(const std::vector<const CheckResult*>& failures) {
  return clusterctl::DrainReason(kHealthDrains, failures);
}

// Pure: from the node's state as slurmctld has it and this run's results.
inline SlurmAction Decide(const SlurmNodeState& state, const NodeHealth& health) {
  return DecideDrain(kHealthDrains, state, health.Failures());
}

}  // namespace clusterctl::health
