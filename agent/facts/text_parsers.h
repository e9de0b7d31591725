// Pure parsers for the text files facts are read from. Each takes the file's
// content and returns JSON (or a struct); none touches the system, so each is
// tested on recorded output (tests/fixtures/facts, ../shared/fixtures).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

// /etc/os-release -> {id, version_id, version_codename, pretty_name, family}
// family: "debian" or "rhel" (from ID and ID_LIKE), else the id.
nlohmann::json ParseOsRelease(std::string_view text);

// /proc/cpuinfo -> {model, cpus, sockets, cores_per_socket, threads_per_core}
// x86 lists "physical id"/"core id"; where those are missing (Arm, some VMs)
// every CPU counts as a core of one socket (GatherFacts then takes the
// topology from sysfs: cpu_topology.h). An Arm node's model is named from
// its "CPU implementer"/"CPU part" (arm_cpu.h): Grace is "Neoverse-V2".
nlohmann::json ParseCpuinfo(std::string_view text);

// /proc/meminfo -> {total_mib, available_mib}
nlohmann::json ParseMeminfo(std::string_view text);

// /proc/modules -> ["nvidia", "mlx5_core", ...] (sorted)
std::vector<std::string> ParseProcModules(std::string_view text);

// /proc/driver/nvidia/version -> "535.104.05", or "" when not recognised.
std::string ParseNvidiaDriverVersion(std::string_view text);

// /var/lib/dpkg/status -> {name: version} of installed packages whose name
// matches one of `patterns` (shell globs: '*' and '?').
nlohmann::json ParseDpkgStatus(std::string_view text, const std::vector<std::string>& patterns);

// `rpm -qa --qf '%{NAME}\t%{VERSION}-%{RELEASE}\n'` -> {name: version}, filtered the same way.
nlohmann::json ParseRpmList(std::string_view text, const std::vector<std::string>& patterns);

// /proc/partitions -> [{name, size_bytes}] of whole disks (no partitions,
// loop, ram or device-mapper devices).
nlohmann::json ParsePartitions(std::string_view text);

// /proc/uptime -> seconds since boot (integer).
long long ParseUptime(std::string_view text);

}  // namespace clusterctl::facts
