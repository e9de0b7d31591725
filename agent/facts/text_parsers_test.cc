#include "agent/facts/text_parsers.h"

#include <doctest/doctest.h>

#include "tests/unit/fixture.h"
#include "tests/unit/test_paths.h"

namespace clusterctl::facts {
namespace {

std::string Fixture(const std::string& name) {
  return testing::ReadFixture(testing::FixturesDir() + "/facts/" + name);
}

}  // namespace

TEST_CASE("os-release: id, version and family for Debian, Ubuntu and Rocky") {
  auto debian = ParseOsRelease(Fixture("os-release--debian12.txt"));
  CHECK(debian["id"] == "debian");
  CHECK(debian["version_id"] == "12");
  CHECK(debian["version_codename"] == "bookworm");
  CHECK(debian["family"] == "debian");
  auto ubuntu = ParseOsRelease(Fixture("os-release--ubuntu2204.txt"));
  CHECK(ubuntu["id"] == "ubuntu");
  CHECK(ubuntu["family"] == "debian");
  auto rocky = ParseOsRelease(Fixture("os-release--rocky9.txt"));
  CHECK(rocky["id"] == "rocky");
  CHECK(rocky["version_id"] == "9.3");
  CHECK(rocky["family"] == "rhel");
}

TEST_CASE("cpuinfo: sockets, cores and threads") {
  auto two_socket = ParseCpuinfo(Fixture("cpuinfo--2socket-ht.txt"));
  CHECK(two_socket["cpus"] == 8);
  CHECK(two_socket["sockets"] == 2);
  CHECK(two_socket["cores_per_socket"] == 2);
  CHECK(two_socket["threads_per_core"] == 2);
  CHECK(two_socket["model"] == "Intel(R) Xeon(R) Platinum 8480+");
  auto kvm = ParseCpuinfo(Fixture("cpuinfo--kvm-2vcpu.txt"));
  CHECK(kvm["cpus"] == 2);
  CHECK(kvm["sockets"] == 1);
  CHECK(kvm["cores_per_socket"] == 2);
  CHECK(kvm["threads_per_core"] == 1);
  auto arm = ParseCpuinfo(Fixture("cpuinfo--aarch64-4cpu.txt"));
  CHECK(arm["cpus"] == 4);
  CHECK(arm["sockets"] == 1);
  CHECK(arm["cores_per_socket"] == 4);
  CHECK(arm["model"] == "Neoverse-V2");  // CPU implementer 0x41, CPU part 0xd4f: no "model name" on Arm
}

TEST_CASE("meminfo, modules, partitions and uptime") {
  auto memory = ParseMeminfo(Fixture("meminfo--24g.txt"));
  CHECK(memory["total_mib"].get<long long>() > 20000);
  auto modules = ParseProcModules(Fixture("modules--gpu-node.txt"));
  CHECK(modules == std::vector<std::string>{"ib_uverbs", "mlx5_core", "mlx5_ib", "nvidia", "nvidia_peermem", "nvidia_uvm"});
  auto disks = ParsePartitions(Fixture("partitions--nvme.txt"));
  REQUIRE(disks.size() == 2);
  CHECK(disks[0]["name"] == "nvme0n1");
  CHECK(disks[0]["size_bytes"] == 1875374424LL * 1024);
  CHECK(disks[1]["name"] == "sda");
  CHECK(ParsePartitions(Fixture("partitions--vda.txt"))[0]["name"] == "vda");
  CHECK(ParseUptime("4236.57 7297.18\n") == 4236);
}

TEST_CASE("NVIDIA driver version from /proc/driver/nvidia/version, proprietary and open modules") {
  CHECK(ParseNvidiaDriverVersion(Fixture("nvidia-version--535.txt")) == "535.104.05");
  CHECK(ParseNvidiaDriverVersion(Fixture("nvidia-version--open-550.txt")) == "550.54.15");
  CHECK(ParseNvidiaDriverVersion("garbage").empty());
}

TEST_CASE("dpkg status: installed packages matching the patterns only") {
  auto packages = ParseDpkgStatus(Fixture("dpkg-status--slurm.txt"), {"slurm*", "munge"});
  CHECK(packages == nlohmann::json({{"slurmd", "22.05.8-4+deb12u3"}, {"munge", "0.5.15-2"}}));
  auto rpm = ParseRpmList("slurm\t23.02.7-1.el9\nbash\t5.1.8-6.el9\n", {"slurm*"});
  CHECK(rpm == nlohmann::json({{"slurm", "23.02.7-1.el9"}}));
}

}  // namespace clusterctl::facts
