// The CPU topology and NUMA nodes from sysfs, for nodes whose /proc/cpuinfo
// does not list "physical id"/"core id" (Arm: Grace, GH200, GB200):
//   /sys/devices/system/cpu/cpuN/topology/{physical_package_id,core_id}
//   /sys/devices/system/node/nodeN/cpulist
// On GH200 the GPU's memory is a NUMA node of its own without CPUs (the
// C2C link makes it system memory), so the nodes with CPUs are counted
// apart from all nodes.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

struct CpuTopology {
  int cpus = 0;  // with a topology directory
  int sockets = 0;
  int cores_per_socket = 0;
  int threads_per_core = 0;
};

// Under `root` (a fake tree in tests, "" on a node); nullopt when sysfs
// lists no CPU topology.
std::optional<CpuTopology> ReadCpuTopology(const std::string& root);

// {"nodes": N, "nodes_with_cpus": M}; nullopt without /sys/devices/system/node.
std::optional<nlohmann::json> ReadNumaNodes(const std::string& root);

// Fills cpu.{sockets,cores_per_socket,threads_per_core} from sysfs where
// /proc/cpuinfo had no topology (cpu.topology_from is then "sysfs"), and
// cpu.numa; `cpu` is ParseCpuinfo's result.
void AddSysfsTopology(nlohmann::json& cpu, const std::string& root, bool cpuinfo_has_topology);

}  // namespace clusterctl::facts
