// Arm nodes' CPU names (arm_cpu.h) on a real Grace /proc/cpuinfo record
// (tests/fixtures/captured/SOURCES.md) and the table's edges.
#include "agent/facts/arm_cpu.h"

#include <doctest/doctest.h>

#include "agent/facts/text_parsers.h"
#include "tests/unit/fixture.h"

namespace clusterctl::facts {

TEST_CASE("a Grace node's /proc/cpuinfo (no model name line) names its cores Neoverse-V2") {
  auto cpu = ParseCpuinfo(testing::CapturedFixture("cpuinfo--Grace-Neoverse-V2--last-record--1.txt"));
  CHECK(cpu["model"] == "Neoverse-V2");
  CHECK(cpu["cpus"] == 1);  // the capture is the last record of 72
  // No "physical id"/"core id": one socket until sysfs says otherwise (cpu_topology.h).
  CHECK(cpu["sockets"] == 1);
  CHECK(cpu["threads_per_core"] == 1);
}

TEST_CASE("ArmCpuName: known cores by implementer and part, others by their numbers") {
  CHECK(ArmCpuName("0x41", "0xd4f") == "Neoverse-V2");
  CHECK(ArmCpuName("0x41", "0xd0c") == "Neoverse-N1");  // AWS Graviton2, Ampere Altra
  CHECK(ArmCpuName("0x41", "0xD40") == "Neoverse-V1");  // hex in either case
  CHECK(ArmCpuName("0xc0", "0xac3") == "Ampere-1");
  CHECK(ArmCpuName("0x4e", "0x004") == "Carmel");
  // The same part number under another implementer is another core.
  CHECK(ArmCpuName("0x4e", "0xd4f") == "NVIDIA part 0xd4f");
  CHECK(ArmCpuName("0x41", "0xd99") == "ARM part 0xd99");
  CHECK(ArmCpuName("0x99", "0x001") == "implementer 0x99 part 0x001");
  CHECK(ArmCpuName("garbage", "0xd4f") == "implementer garbage part 0xd4f");
  CHECK(ArmCpuName("", "0xd4f") == "");
  CHECK(ArmCpuName("0x41", "") == "");
}

TEST_CASE("an x86 model name wins over MIDR fields; a record with neither has no model") {
  CHECK(ParseCpuinfo("processor\t: 0\nmodel name\t: AMD EPYC 9654\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n")["model"] ==
        "AMD EPYC 9654");
  CHECK(ParseCpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n")["model"] == "");
}

}  // namespace clusterctl::facts
