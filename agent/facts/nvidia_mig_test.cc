#include "agent/facts/nvidia_mig.h"

#include <doctest/doctest.h>

#include "tests/unit/fixture.h"

namespace clusterctl::facts {
namespace {

using testing::CapturedFixture;

// A one-row `-lgi` table, the row given: the shape of the real one.
std::string LgiWithRow(const std::string& row) {
  return "+-------------------------------------------------------+\n"
         "| GPU instances:                                        |\n"
         "| GPU   Name             Profile  Instance   Placement  |\n"
         "|                          ID       ID       Start:Size |\n"
         "|=======================================================|\n" +
         row + "\n+-------------------------------------------------------+\n";
}

}  // namespace

TEST_CASE("nvidia-smi mig -lgip: every profile of every GPU of a real 4x H100 80GB capture") {
  auto profiles = ParseMigProfiles(CapturedFixture("nvidia-smi-mig-lgip--4xH100-SXM5-80GB--1.txt"));
  REQUIRE(profiles.ok());
  REQUIRE(profiles->size() == 28);  // 7 profiles x 4 GPUs; the CE/JPEG/OFA lines are not rows
  const MigProfile& three = (*profiles)[4];
  CHECK(three.gpu == 0);
  CHECK(three.name == "3g.40gb");
  CHECK(three.id == 9);
  CHECK(three.free == 2);
  CHECK(three.total == 2);
  CHECK((*profiles)[1].name == "1g.10gb+me");
  CHECK((*profiles)[1].id == 20);
  CHECK((*profiles)[27].gpu == 3);
  CHECK((*profiles)[27].name == "7g.80gb");
  CHECK((*profiles)[27].id == 0);
}

TEST_CASE("nvidia-smi mig -lgi: the GPU instances of real captures (two GPUs; seven 1g.10gb)") {
  auto two = ParseMigGpuInstances(CapturedFixture("nvidia-smi-mig-lgi--2x80GB-MIG--1.txt"));
  REQUIRE(two.ok());
  REQUIRE(two->size() == 8);
  CHECK((*two)[3].gpu == 0);
  CHECK((*two)[3].profile == "3g.40gb");
  CHECK((*two)[3].profile_id == 9);
  CHECK((*two)[3].id == 2);
  CHECK((*two)[3].placement_start == 4);
  CHECK((*two)[3].placement_size == 4);
  CHECK((*two)[7].gpu == 1);
  CHECK((*two)[7].id == 1);

  auto seven = ParseMigGpuInstances(CapturedFixture("nvidia-smi-mig-lgi--H100-80GB-HBM3-7x1g--1.txt"));
  REQUIRE(seven.ok());
  REQUIRE(seven->size() == 7);
  CHECK((*seven)[6].id == 13);
  CHECK((*seven)[6].placement_start == 6);
}

TEST_CASE("nvidia-smi mig -lci: a compute instance per GPU instance, real capture") {
  auto cis = ParseMigComputeInstances(CapturedFixture("nvidia-smi-mig-lci--H100-80GB-HBM3-7x1g--1.txt"));
  REQUIRE(cis.ok());
  REQUIRE(cis->size() == 7);
  CHECK((*cis)[0].gpu == 0);
  CHECK((*cis)[0].gpu_instance == 7);
  CHECK((*cis)[0].name == "1g.10gb");
  CHECK((*cis)[0].profile_id == 0);
  CHECK((*cis)[0].id == 0);
  CHECK((*cis)[6].gpu_instance == 13);
  // Drivers before R470 print no placement column: six cells.
  auto old = ParseMigComputeInstances(
      "| Compute instances:                                    |\n"
      "| GPU     GPU       Name             Profile   Instance |\n"
      "|=======================================================|\n"
      "|   0      1       MIG 1c.3g.20gb       0         2     |\n");
  REQUIRE(old.ok());
  CHECK((*old)[0].name == "1c.3g.20gb");
  CHECK((*old)[0].id == 2);
}

TEST_CASE("nvidia-smi -L: GPUs and the MIG devices under them, real H100 and H200 captures") {
  auto h100 = ParseNvidiaSmiList(CapturedFixture("nvidia-smi-L--H100-80GB-HBM3-MIG--1.txt"));
  REQUIRE(h100.ok());
  REQUIRE(h100->size() == 1);
  CHECK((*h100)[0].index == 0);
  CHECK((*h100)[0].model == "NVIDIA H100 80GB HBM3");
  CHECK((*h100)[0].uuid == "GPU-00000000-0000-0000-0000-000000000000");
  REQUIRE((*h100)[0].mig_devices.size() == 4);
  CHECK((*h100)[0].mig_devices[0].name == "3g.40gb");
  CHECK((*h100)[0].mig_devices[3].device == 3);
  CHECK((*h100)[0].mig_devices[3].uuid == "MIG-00000003-0000-0000-0000-000000000003");

  auto h200 = ParseNvidiaSmiList(CapturedFixture("nvidia-smi-L--H200-MIG-shared-compute--1.txt"));
  REQUIRE(h200.ok());
  REQUIRE((*h200)[0].mig_devices.size() == 5);
  CHECK((*h200)[0].mig_devices[0].name == "1c.3g.71gb");
  CHECK(GpuInstanceProfileOf((*h200)[0].mig_devices[0].name) == "3g.71gb");
  CHECK(GpuInstanceProfileOf((*h200)[0].mig_devices[2].name) == "2g.35gb");

  // Without MIG, and an R450 MIG UUID (MIG-GPU-.../GI/CI), CRLF line ends.
  auto plain = ParseNvidiaSmiList(
      "GPU 0: A100-SXM4-40GB (UUID: GPU-2fa5cf01-9520-1bc1-995b-cc0c6d9bca7c)\r\n"
      "  MIG 1c.3g.20gb Device 0: (UUID: MIG-GPU-2fa5cf01-9520-1bc1-995b-cc0c6d9bca7c/1/0)\r\n"
      "GPU 1: Tesla V100-SXM2-16GB (UUID: GPU-1)\r\n");
  REQUIRE(plain.ok());
  REQUIRE(plain->size() == 2);
  CHECK((*plain)[0].mig_devices[0].uuid == "MIG-GPU-2fa5cf01-9520-1bc1-995b-cc0c6d9bca7c/1/0");
  CHECK((*plain)[1].mig_devices.empty());
}

TEST_CASE("MIG parsers: what nvidia-smi prints instead of a table is an error quoting it") {
  auto none = ParseMigGpuInstances("No GPU instances found: Not Found\n");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("No GPU instances found: Not Found") != std::string::npos);
  CHECK_FALSE(ParseMigProfiles("").ok());
  CHECK_FALSE(ParseMigComputeInstances("Failed to display compute instances: Insufficient Permissions\n").ok());
  auto listed = ParseNvidiaSmiList("No devices were found\n");
  REQUIRE_FALSE(listed.ok());
  CHECK(listed.status().message().find("No devices were found") != std::string::npos);
  CHECK_FALSE(ParseNvidiaSmiList("").ok());
  // A header with no rows: nothing exists, not an error.
  auto empty = ParseMigGpuInstances(LgiWithRow(""));
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}

TEST_CASE("MIG parsers: broken and hostile rows are errors naming the line, never partial answers") {
  auto truncated = ParseMigGpuInstances(LgiWithRow("|   0  MIG 3g.40gb          9        2          4:4"));
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.status().message().find("line 6") != std::string::npos);
  CHECK_FALSE(ParseMigGpuInstances(LgiWithRow("|   0  MIG 3g.40gb          9        2     |")).ok());  // a cell missing
  CHECK_FALSE(ParseMigGpuInstances(LgiWithRow("|   0  MIG 3g.40gb  99999999999  2   4:4 |")).ok());  // out of range
  CHECK_FALSE(ParseMigGpuInstances(LgiWithRow("|   0  MIG 3g.40gb          9        2          4-4 |")).ok());
  auto shell = ParseMigGpuInstances(LgiWithRow("|   0  MIG 3g.40gb;reboot   9        2          4:4 |"));
  REQUIRE_FALSE(shell.ok());
  CHECK(shell.status().message().find("not a MIG profile name") != std::string::npos);
  CHECK_FALSE(ParseMigGpuInstances(LgiWithRow("|   0  MIG 3G.40GB          9        2          4:4 |")).ok());
  CHECK_FALSE(ParseMigGpuInstances(LgiWithRow("|   0  MIG 3g.40gb\x1b[31m  9   2   4:4 |")).ok());
  CHECK_FALSE(ParseMigProfiles(
                  "| GPU instance profiles: |\n|====|\n|   0  MIG 3g.40gb   9   3/2   39.50   No   60   3   0   |\n")
                  .ok());  // more free than total
  CHECK_FALSE(ParseMigGpuInstances("| GPU instances: |\n|   0  MIG 3g.40gb  9  2  4:4 |\n").ok());  // no rule
  CHECK_FALSE(ParseNvidiaSmiList("  MIG 3g.40gb     Device  0: (UUID: MIG-1)\nGPU 0: X (UUID: GPU-1)\n").ok());
  CHECK_FALSE(ParseNvidiaSmiList("GPU 0: NVIDIA H100 (UUID: GPU-1)\n  MIG 3g.40gb Device 0: (UUID: $(reboot))\n").ok());
  CHECK_FALSE(ParseNvidiaSmiList("GPU 0: NVIDIA H100 (UUID: GPU-1)\nWarning: something else\n").ok());
  CHECK_FALSE(ParseNvidiaSmiList("GPU x: NVIDIA H100 (UUID: GPU-1)\n").ok());
}

TEST_CASE("MIG profile names: nvidia-smi's forms, nothing else") {
  for (const char* good : {"3g.40gb", "1g.10gb+me", "1c.3g.71gb", "7g.141gb", "1g.24gb+me+gfx", "4g.24gb"}) {
    CHECK_MESSAGE(MigProfileNameRefusal(good).empty(), good);
  }
  for (const char* bad : {"", "3g", "3g.40", "g.40gb", "03g.40gb", "3g.40gb+", "3g.40gb me", "3G.40GB", "3g.40gb;x",
                          "all-1g.10gb", "3x.40gb", "1c.3g", "3g.40gbx"}) {
    CHECK_FALSE_MESSAGE(MigProfileNameRefusal(bad).empty(), bad);
  }
}

TEST_CASE("mig-minors: capability names to /dev/nvidia-caps minors; anything else is an error naming the line") {
  // Lines as real nodes show them (SOURCES.md, "MIG capability minors"):
  // GPU 4's GPU instance 7 and its compute instance 0; the two fixed ones.
  auto minors = ParseMigMinors("config 1\nmonitor 2\ngpu4/gi7/access 606\ngpu4/gi7/ci0/access 607\n");
  REQUIRE(minors.ok());
  CHECK(minors->size() == 4);
  CHECK(minors->at("gpu4/gi7/access") == 606);
  CHECK(minors->at("gpu4/gi7/ci0/access") == 607);
  CHECK(minors->at("config") == 1);
  for (const char* bad : {"gpu0/gi1/access\n", "gpu0/gi1/access 12 13\n", "gpu0/gi1/access -3\n", "gpu0/gi1/access; 12\n",
                          "gpu0/gi1/access 99999999\n", ""}) {
    auto refused = ParseMigMinors(bad);
    CHECK_FALSE(refused.ok());
  }
  auto named = ParseMigMinors("config 1\ngpu0 gi1 access 12\n");
  REQUIRE_FALSE(named.ok());
  CHECK(named.status().message().find("line 2") != std::string::npos);
}

}  // namespace clusterctl::facts
