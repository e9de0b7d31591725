// The NVIDIA driver in a node's facts (docs/agent.md). facts.nvidia_driver
// is the loaded module's version, a real driver's or the testbed's
// simulated one's (facts.nvidia.simulated: true), so the roles plan the
// same on both. What needs a real driver (NVML in Slurm, validate's and
// the health check's verdicts) reads RealNvidiaDriver, never the bare fact.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/json_fields.h"

namespace clusterctl {

// The loaded module is the testbed's simulated one (facts.nvidia.simulated).
inline bool SimulatedNvidiaDriver(const nlohmann::json& facts) {
  const nlohmann::json* nvidia = MemberOf(facts, "nvidia");
  return nvidia != nullptr && FlagAt(*nvidia, "simulated");
}

// The version of a real loaded NVIDIA driver; "" for none and for a simulated one.
inline std::string RealNvidiaDriver(const nlohmann::json& facts) {
  return SimulatedNvidiaDriver(facts) ? std::string() : TextAt(facts, "nvidia_driver");
}

}  // namespace clusterctl
