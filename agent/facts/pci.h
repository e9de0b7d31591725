// PCI devices: GPUs and Mellanox/NVIDIA network adapters (HCAs), and the
// InfiniBand ports under them.
//
// Probe: /sys/bus/pci/devices/*/{vendor,device,class,numa_node} and
// /sys/bus/pci/devices/*/infiniband/*/ports/*/{state,phys_state,rate,link_layer}
// (the same ports /sys/class/infiniband links to, found where they live so a
// container's read-only sysfs fixture works too). Classification and the
// attribute parsers are pure and also run on `lspci`/`lspci -nn` captures.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

struct PciDevice {
  std::string address;      // "0000:18:00.0"
  unsigned vendor = 0;      // 0x10de
  unsigned device = 0;      // 0x2330; 0 when unknown
  unsigned class_code = 0;  // 24-bit, e.g. 0x030200; 0 when unknown
  int numa_node = -1;
  std::string class_name;   // from lspci text ("3D controller"), else empty
  std::string vendor_name;  // from lspci text
  std::string device_name;  // from lspci text
};

struct IbPort {
  std::string pci_address;
  std::string device;      // "mlx5_0"
  int port = 0;
  std::string state;       // "ACTIVE"
  std::string phys_state;  // "LinkUp"
  double rate_gbps = 0;    // 200
  std::string rate_text;   // "4X HDR"
  std::string link_layer;  // "InfiniBand" | "Ethernet"
  std::string port_guid;   // "0x0c42a10300031234" (from GID 0); empty when unknown
  int lid = -1;            // the port's LID (InfiniBand; 0 before the SM assigned one); -1 unknown
};

// lspci (default or -nn format) -> devices.
std::vector<PciDevice> ParseLspci(std::string_view text);

// {gpus: [...], gpu_count, gpu_model, hcas: [...], hca_count, ib_hca_count}
nlohmann::json ClassifyPci(const std::vector<PciDevice>& devices);

std::string NvidiaGpuModel(unsigned device_id);
std::string MellanoxModel(unsigned device_id);

// Parses sysfs port attribute text ("4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)").
IbPort ParseIbPortAttributes(std::string_view state, std::string_view phys_state, std::string_view rate,
                             std::string_view link_layer);
nlohmann::json IbPortsToJson(const std::vector<IbPort>& ports);

// Probes (read sysfs under `root`, "/" on a node).
// A one-line sysfs/procfs file, trimmed; "" when it cannot be read.
std::string ReadTrimmed(const std::filesystem::path& path);
std::vector<PciDevice> ReadPciDevices(const std::string& root);
std::vector<IbPort> ReadIbPorts(const std::string& root);
// [{device, pci_address, model (hca_type, "MT4123"), firmware (fw_ver),
//   psid (board_id, "MT_0000000223"), node_guid, sys_image_guid}] by device
// name; a value sysfs does not give is null.
nlohmann::json ReadIbDevices(const std::string& root);

}  // namespace clusterctl::facts
