// CPU topology and NUMA nodes from a fake sysfs tree (cpu_topology.h), in
// the shapes Grace systems have: a GB200 tray's two Grace sockets of 72
// cores, a GH200's GPU memory as a NUMA node without CPUs.
#include "agent/facts/cpu_topology.h"

#include <doctest/doctest.h>

#include "controller/state/test_util.h"

namespace clusterctl::facts {
namespace {

using testing::WriteFileLine;

// `sockets` x `cores` CPUs, one thread each, numbered across sockets.
void WriteCpus(const std::string& root, int sockets, int cores) {
  for (int cpu = 0; cpu < sockets * cores; ++cpu) {
    const std::string dir = root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology";
    WriteFileLine(dir + "/physical_package_id", std::to_string(cpu / cores));
    WriteFileLine(dir + "/core_id", std::to_string(cpu % cores));
  }
  // Not CPUs: sysfs lists these beside them.
  WriteFileLine(root + "/sys/devices/system/cpu/cpufreq/boost", "0");
  WriteFileLine(root + "/sys/devices/system/cpu/online", "0-" + std::to_string(sockets * cores - 1));
}

}  // namespace

TEST_CASE("sysfs topology: two Grace sockets of 72 cores, one thread each") {
  testing::TempDir root;
  WriteCpus(root.path(), 2, 72);
  auto topology = ReadCpuTopology(root.path());
  REQUIRE(topology);
  CHECK(topology->cpus == 144);
  CHECK(topology->sockets == 2);
  CHECK(topology->cores_per_socket == 72);
  CHECK(topology->threads_per_core == 1);
}

TEST_CASE("AddSysfsTopology fills what an Arm cpuinfo lacks, and leaves an x86 one's") {
  testing::TempDir root;
  WriteCpus(root.path(), 2, 72);
  nlohmann::json arm = {{"model", "Neoverse-V2"}, {"cpus", 144}, {"sockets", 1}, {"cores_per_socket", 144},
                        {"threads_per_core", 1}};
  AddSysfsTopology(arm, root.path(), false);
  CHECK(arm["sockets"] == 2);
  CHECK(arm["cores_per_socket"] == 72);
  CHECK(arm["topology_from"] == "sysfs");
  nlohmann::json x86 = {{"sockets", 4}, {"cores_per_socket", 36}, {"threads_per_core", 2}};
  AddSysfsTopology(x86, root.path(), true);
  CHECK(x86["sockets"] == 4);
  CHECK_FALSE(x86.contains("topology_from"));
}

TEST_CASE("NUMA: a GH200's GPU memory is a node without CPUs") {
  testing::TempDir root;
  WriteFileLine(root.path() + "/sys/devices/system/node/node0/cpulist", "0-71");
  WriteFileLine(root.path() + "/sys/devices/system/node/node1/cpulist", "");
  WriteFileLine(root.path() + "/sys/devices/system/node/possible", "0-8");
  auto numa = ReadNumaNodes(root.path());
  REQUIRE(numa);
  CHECK((*numa)["nodes"] == 2);
  CHECK((*numa)["nodes_with_cpus"] == 1);
}

TEST_CASE("no sysfs: nothing is made up") {
  testing::TempDir root;
  CHECK_FALSE(ReadCpuTopology(root.path()));
  CHECK_FALSE(ReadNumaNodes(root.path()));
  nlohmann::json cpu = {{"sockets", 1}};
  AddSysfsTopology(cpu, root.path(), false);
  CHECK(cpu == nlohmann::json{{"sockets", 1}});
}

}  // namespace clusterctl::facts
