#include "agent/facts/cpu_topology.h"

#include <filesystem>
#include <set>
#include <utility>

#include "agent/facts/pci.h"

namespace clusterctl::facts {
namespace {

// "cpu12" / "node3": the prefix and a number.
bool IsNumbered(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  return name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

}  // namespace

std::optional<CpuTopology> ReadCpuTopology(const std::string& root) {
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  CpuTopology topology;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/sys/devices/system/cpu", ec)) {
    if (!IsNumbered(entry.path().filename().string(), "cpu")) continue;
    const std::string package = ReadTrimmed(entry.path() / "topology" / "physical_package_id");
    const std::string core = ReadTrimmed(entry.path() / "topology" / "core_id");
    if (package.empty() || core.empty()) continue;  // offline: no topology directory
    ++topology.cpus;
    packages.insert(package);
    cores.insert({package, core});
  }
  if (topology.cpus == 0) return std::nullopt;
  topology.sockets = static_cast<int>(packages.size());
  topology.cores_per_socket = static_cast<int>(cores.size()) / topology.sockets;
  topology.threads_per_core = topology.cpus / static_cast<int>(cores.size());
  return topology;
}

std::optional<nlohmann::json> ReadNumaNodes(const std::string& root) {
  int nodes = 0, with_cpus = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/sys/devices/system/node", ec)) {
    if (!IsNumbered(entry.path().filename().string(), "node")) continue;
    ++nodes;
    if (!ReadTrimmed(entry.path() / "cpulist").empty()) ++with_cpus;
  }
  if (nodes == 0) return std::nullopt;
  return nlohmann::json{{"nodes", nodes}, {"nodes_with_cpus", with_cpus}};
}

void AddSysfsTopology(nlohmann::json& cpu, const std::string& root, bool cpuinfo_has_topology) {
  if (!cpuinfo_has_topology) {
    if (auto topology = ReadCpuTopology(root)) {
      cpu["sockets"] = topology->sockets;
      cpu["cores_per_socket"] = topology->cores_per_socket;
      cpu["threads_per_core"] = topology->threads_per_core;
      cpu["topology_from"] = "sysfs";
    }
  }
  if (auto numa = ReadNumaNodes(root)) cpu["numa"] = *numa;
}

}  // namespace clusterctl::facts
