// The Slurm health check's configuration on a node (docs/health.md):
// /etc/clusterctl/health.json, rendered by the slurm-health role at deploy
// from the inventory (which checks, their thresholds and variables) and the
// node's facts then (the CPUs and memory it must keep). Version 1:
//   {"version": 1, "node": "node02", "checks": ["clock.offset", ...],
//    "vars": {"validate_clock_offset_max_ms": 100, ...},
//    "textfile": "/var/lib/prometheus/node-exporter/clusterctl_health.prom"}
// Written by root; still read as untrusted: every field is type-checked and
// a problem names the field.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace clusterctl::health {

constexpr int kConfigVersion = 1;
constexpr const char* kDefaultConfigPath = "/etc/clusterctl/health.json";

struct HealthConfig {
  std::string node;                 // the node's Slurm name (NodeName=)
  std::vector<std::string> checks;  // node checks to judge, each a registered spec with a verdict
  nlohmann::json vars = nlohmann::json::object();  // the node's check variables and thresholds
  std::string textfile;             // the node exporter's textfile to write ("": none)
};

// Every problem, by field; an unknown check name is one ("checks[2]: no node
// check 'gpu.xyd'").
Result<HealthConfig> ParseHealthConfig(const std::string& text);

}  // namespace clusterctl::health
