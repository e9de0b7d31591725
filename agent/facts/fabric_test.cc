#include "agent/facts/fabric.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "agent/facts/pci.h"
#include "controller/state/test_util.h"

namespace clusterctl::facts {

using testing::WriteFileLine;

// The module /proc/driver/nvidia/version `text` shows.
LoadedNvidiaModule Module(std::string_view text) { return LoadedNvidiaModuleOf(text, "", ""); }

TEST_CASE("rdma_stack: NVIDIA's metapackages win over the rdma-core they also ship") {
  CHECK(RdmaStackOf(nlohmann::json::object()) == nlohmann::json({{"stack", nullptr}, {"version", nullptr}}));
  CHECK(RdmaStackOf({{"rdma-core", "44.0-2"}}) == nlohmann::json({{"stack", "inbox"}, {"version", "44.0-2"}}));
  CHECK(RdmaStackOf({{"rdma-core", "2410mlnx54-1.2410068"}, {"mlnx-ofed-all", "24.10-1.1.4.0"}}) ==
        nlohmann::json({{"stack", "mlnx_ofed"}, {"version", "24.10-1.1.4.0"}}));
  CHECK(RdmaStackOf({{"rdma-core", "2501mlnx56-1"}, {"doca-ofed", "2.10.0-0.5.3"}, {"ofed-scripts", "25.01"}}) ==
        nlohmann::json({{"stack", "doca_ofed"}, {"version", "2.10.0-0.5.3"}}));
}

TEST_CASE("peer_memory: the GPUDirect module that is loaded, the driver's own first") {
  CHECK(PeerMemoryOf({"mlx5_ib", "nvidia"}).is_null());
  CHECK(PeerMemoryOf({"nv_peer_mem", "nvidia"}) == "nv_peer_mem");
  CHECK(PeerMemoryOf({"nv_peer_mem", "nvidia_peermem"}) == "nvidia_peermem");
}

TEST_CASE("gpudirect: DMA-BUF with open modules, R515+, kernel 5.12+ and a DMA-BUF capable stack; else the modules there are") {
  // /proc/driver/nvidia/version as the open and the proprietary modules write it.
  const std::string open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
                           "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:25:25 UTC 2024\nGCC version:  gcc 12.2.0\n";
  const std::string proprietary = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC "
                                  "2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
  const std::string dep = "kernel/drivers/infiniband/core/ib_core.ko.xz:\n"
                          "updates/dkms/nvidia-peermem.ko: updates/dkms/nvidia.ko kernel/drivers/infiniband/core/ib_core.ko.xz\n";
  const nlohmann::json inbox = {{"stack", "inbox"}, {"version", "44.0-2"}};
  const nlohmann::json packages = {{"rdma-core", "44.0-2"}};

  nlohmann::json best = GpudirectOf(Module(open), "6.1.0-26-amd64", packages, inbox, dep);
  CHECK(best["kernel_modules"] == "open");
  CHECK(best["dmabuf"] == true);
  CHECK(best["nvidia_peermem"] == true);
  CHECK(best["recommended"] == "dmabuf");

  // Proprietary modules cannot export DMA-BUF: the driver's own nvidia-peermem.
  nlohmann::json peermem = GpudirectOf(Module(proprietary), "6.1.0-26-amd64", packages, inbox, dep);
  CHECK(peermem["kernel_modules"] == "proprietary");
  CHECK(peermem["dmabuf"] == false);
  CHECK(peermem["recommended"] == "nvidia_peermem");

  // Debian's nvidia-kernel-dkms 535 on the inbox stack, as modules.dep lists
  // it (the heavier GPU suite): the peermem module depends on no ib_core, so
  // it was built without the peer-memory API and cannot load.
  const std::string debian_inbox = "updates/dkms/nvidia-current-peermem.ko:\n"
                                   "updates/dkms/nvidia-current.ko: kernel/drivers/gpu/drm/drm.ko\n";
  const nlohmann::json stub = GpudirectOf(Module(proprietary), "6.1.0-26-amd64", packages, inbox, debian_inbox);
  CHECK(stub["nvidia_peermem"] == false);
  CHECK(stub["recommended"].is_null());
  // The same renamed file built against NVIDIA's stack's ib_core.
  const std::string debian_ofed = "updates/dkms/nvidia-current-peermem.ko: updates/dkms/nvidia-current.ko "
                                  "updates/dkms/ib_core.ko\nupdates/dkms/nvidia-current.ko:\n";
  CHECK(GpudirectOf(Module(proprietary), "6.1.0-26-amd64", packages, inbox, debian_ofed)["recommended"] == "nvidia_peermem");

  // An old kernel or an rdma-core before v34 has no DMA-BUF registration.
  CHECK(GpudirectOf(Module(open), "5.10.0-30-amd64", packages, inbox, dep)["recommended"] == "nvidia_peermem");
  CHECK(GpudirectOf(Module(open), "6.1.0-26-amd64", {{"rdma-core", "28.0-1"}}, inbox, dep)["dmabuf"] == false);
  // NVIDIA's stack registers DMA-BUF whatever its rdma-core is called.
  CHECK(GpudirectOf(Module(open), "6.1.0-26-amd64", nlohmann::json::object(), {{"stack", "mlnx_ofed"}, {"version", "24.10"}},
                    dep)["dmabuf"] == true);

  // An old driver with Mellanox's legacy module built for the kernel.
  nlohmann::json legacy = GpudirectOf(Module("NVRM version: NVIDIA UNIX x86_64 Kernel Module  460.106.00  Tue Sep 28 UTC 2021\n"),
                                      "5.4.0-150-generic", packages, inbox, "updates/dkms/nv_peer_mem.ko:\n");
  CHECK(legacy["recommended"] == "nv_peer_mem");

  // No driver loaded: nothing to decide from.
  nlohmann::json none = GpudirectOf(Module(""), "6.1.0-26-amd64", packages, inbox, "");
  CHECK(none["kernel_modules"].is_null());
  CHECK(none["recommended"].is_null());

  // The testbed's simulated module (no /proc/driver/nvidia): its version and
  // taint flags decide the same way, open modules giving DMA-BUF.
  const nlohmann::json simulated_open = GpudirectOf(LoadedNvidiaModuleOf("", "550.144.03\n", "O\n"), "6.1.0-26-amd64", packages, inbox, "");
  CHECK(simulated_open["kernel_modules"] == "open");
  CHECK(simulated_open["recommended"] == "dmabuf");
  const nlohmann::json simulated_proprietary =
      GpudirectOf(LoadedNvidiaModuleOf("", "550.144.03\n", "PO\n"), "6.1.0-26-amd64", packages, inbox, "");
  CHECK(simulated_proprietary["kernel_modules"] == "proprietary");
  CHECK(simulated_proprietary["recommended"].is_null());
}

TEST_CASE("network_stack: netplan, then an enabled NetworkManager or networkd, then ifupdown") {
  testing::TempDir dir;
  const std::string root = dir.path();
  CHECK(DetectNetworkStack(root) == "none");
  WriteFileLine(root + "/etc/network/interfaces", "auto lo");
  CHECK(DetectNetworkStack(root) == "none");  // the file without ifup (Debian leaves it behind)
  WriteFileLine(root + "/sbin/ifup", "");
  CHECK(DetectNetworkStack(root) == "ifupdown");
  WriteFileLine(root + "/etc/systemd/system/multi-user.target.wants/systemd-networkd.service", "");
  CHECK(DetectNetworkStack(root) == "systemd-networkd");
  WriteFileLine(root + "/etc/systemd/system/multi-user.target.wants/NetworkManager.service", "");
  CHECK(DetectNetworkStack(root) == "NetworkManager");
  WriteFileLine(root + "/etc/netplan/50-cloud-init.yaml", "network: {version: 2}");
  CHECK(DetectNetworkStack(root) == "netplan");
}

TEST_CASE("interfaces: the IPoIB mode from /sys/class/net, only where the file exists") {
  testing::TempDir dir;
  const std::string root = dir.path();
  WriteFileLine(root + "/sys/class/net/ib0/mode", "connected");
  nlohmann::json interfaces = {{{"name", "eth0"}}, {{"name", "ib0"}}};
  AddIpoibModes(interfaces, root);
  CHECK_FALSE(interfaces[0].contains("ipoib_mode"));
  CHECK(interfaces[1]["ipoib_mode"] == "connected");
}

TEST_CASE("ib_devices and port GUIDs from sysfs, where the testbed's simulated HCAs also put them") {
  testing::TempDir dir;
  const std::string root = dir.path();
  const std::string hca = root + "/sys/bus/pci/devices/0000:0c:00.0/infiniband/mlx5_0";
  WriteFileLine(hca + "/hca_type", "MT4123");
  WriteFileLine(hca + "/fw_ver", "20.31.1014");
  WriteFileLine(hca + "/board_id", "MT_0000000223");
  WriteFileLine(hca + "/node_guid", "0c42:a103:0003:1234");
  WriteFileLine(hca + "/ports/1/state", "4: ACTIVE");
  WriteFileLine(hca + "/ports/1/gids/0", "fe80:0000:0000:0000:0c42:a103:0003:1234");
  WriteFileLine(hca + "/ports/1/lid", "0x65");
  nlohmann::json devices = ReadIbDevices(root);
  REQUIRE(devices.size() == 1);
  CHECK(devices[0]["device"] == "mlx5_0");
  CHECK(devices[0]["pci_address"] == "0000:0c:00.0");
  CHECK(devices[0]["model"] == "MT4123");
  CHECK(devices[0]["firmware"] == "20.31.1014");
  CHECK(devices[0]["psid"] == "MT_0000000223");
  CHECK(devices[0]["node_guid"] == "0x0c42a10300031234");
  CHECK(devices[0]["sys_image_guid"].is_null());
  auto ports = ReadIbPorts(root);
  REQUIRE(ports.size() == 1);
  CHECK(ports[0].port_guid == "0x0c42a10300031234");
  CHECK(ports[0].lid == 101);
}

}  // namespace clusterctl::facts
