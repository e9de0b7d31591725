#include "agent/facts/pci.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "controller/state/test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl::facts {

using testing::WriteFileLine;

TEST_CASE("lspci -nn of an Azure ND96amsr A100 v4: 8 GPUs, 8 IB VFs, one Ethernet VF, 6 NVSwitches") {
  auto pci = ClassifyPci(ParseLspci(testing::CapturedFixture("lspci-nn--Azure-ND96amsr-A100-v4--1.txt")));
  CHECK(pci["gpu_count"] == 8);
  CHECK(pci["gpu_model"] == "A100-SXM4-80GB");
  CHECK(pci["gpus"][0]["address"] == "0001:00:00.0");
  CHECK(pci["ib_hca_count"] == 8);
  CHECK(pci["hca_count"] == 9);
  CHECK(pci["hcas"][0]["model"] == "ConnectX-6 VF");
  CHECK(pci["hcas"][8]["link"] == "ethernet");
  // "Bridge [0680]: NVIDIA Corporation Device [10de:1af1]": the NVSwitches, neither GPUs nor adapters
  CHECK(pci["nvswitch_count"] == 6);
}

TEST_CASE("plain lspci of a GB200 tray: device-id detection without names") {
  auto pci = ClassifyPci(ParseLspci(testing::CapturedFixture("lspci--GB200--1.txt")));
  CHECK(pci["gpu_count"] == 4);
  CHECK(pci["gpu_model"] == "B200 (GB200)");
  CHECK(pci["ib_hca_count"] == 4);
  // four BlueField-3 Ethernet functions; the DMA engines and CX-7 bridges are not adapters
  CHECK(pci["hca_count"] == 8);
  // the NVLink switches of an NVL72 rack are in their own trays; the CX-7 PCI bridges are not NVSwitches
  CHECK(pci["nvswitch_count"] == 0);
}

TEST_CASE("IB port attributes as sysfs writes them") {
  IbPort port = ParseIbPortAttributes("4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand");
  CHECK(port.state == "ACTIVE");
  CHECK(port.phys_state == "LinkUp");
  CHECK(port.rate_gbps == 200);
  CHECK(port.rate_text == "4X HDR");
  CHECK(port.link_layer == "InfiniBand");
  IbPort down = ParseIbPortAttributes("1: DOWN", "3: Disabled", "10 Gb/sec (4X SDR)", "InfiniBand");
  CHECK(down.state == "DOWN");
  CHECK(down.rate_gbps == 10);
}

TEST_CASE("a sysfs tree with GPUs and an HCA is read as facts") {
  testing::TempDir root;
  const std::string devices = root.path() + "/sys/bus/pci/devices";
  for (const char* bus : {"0000:18:00.0", "0000:2a:00.0"}) {
    WriteFileLine(devices + "/" + bus + "/vendor", "0x10de");
    WriteFileLine(devices + "/" + bus + "/device", "0x2330");
    WriteFileLine(devices + "/" + bus + "/class", "0x030200");
    WriteFileLine(devices + "/" + bus + "/numa_node", "0");
  }
  WriteFileLine(devices + "/0000:c3:00.0/vendor", "0x10de");  // an NVSwitch
  WriteFileLine(devices + "/0000:c3:00.0/device", "0x22a3");
  WriteFileLine(devices + "/0000:c3:00.0/class", "0x068000");
  WriteFileLine(devices + "/0000:0c:00.0/vendor", "0x15b3");
  WriteFileLine(devices + "/0000:0c:00.0/device", "0x101b");
  WriteFileLine(devices + "/0000:0c:00.0/class", "0x020700");
  const std::string port = devices + "/0000:0c:00.0/infiniband/mlx5_0/ports/1";
  WriteFileLine(port + "/state", "4: ACTIVE");
  WriteFileLine(port + "/phys_state", "5: LinkUp");
  WriteFileLine(port + "/rate", "200 Gb/sec (4X HDR)");
  WriteFileLine(port + "/link_layer", "InfiniBand");

  auto pci = ClassifyPci(ReadPciDevices(root.path()));
  CHECK(pci["gpu_count"] == 2);
  CHECK(pci["nvswitch_count"] == 1);
  CHECK(pci["gpu_model"] == "H100-SXM5-80GB");
  CHECK(pci["ib_hca_count"] == 1);
  auto ports = ReadIbPorts(root.path());
  REQUIRE(ports.size() == 1);
  CHECK(ports[0].device == "mlx5_0");
  CHECK(ports[0].port == 1);
  CHECK(ports[0].pci_address == "0000:0c:00.0");
  CHECK(ports[0].state == "ACTIVE");
}

}  // namespace clusterctl::facts
