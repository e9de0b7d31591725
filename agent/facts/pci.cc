#include "agent/facts/pci.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "common/strings.h"

namespace clusterctl::facts {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kMellanox = 0x15b3;

unsigned ParseHex(const std::string& text) {
  if (text.empty()) return 0;
  return static_cast<unsigned>(std::strtoul(text.c_str(), nullptr, 16));
}

std::string Hex4(unsigned value) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04x", value);
  return buffer;
}

bool IsGpu(const PciDevice& d) {
  if (d.class_code != 0) {
    unsigned subclass = d.class_code >> 8;
    return d.vendor == kNvidia && (subclass == 0x0300 || subclass == 0x0302);
  }
  bool nvidia = d.vendor == kNvidia || d.vendor_name.find("NVIDIA") != std::string::npos;
  return nvidia && (d.class_name == "3D controller" || d.class_name == "VGA compatible controller");
}

// NVSwitch: an NVIDIA function of class 0x0680 ("Bridge: other"), as on
// HGX/DGX boards; the fabric manager must run where there is one.
bool IsNvswitch(const PciDevice& d) {
  if (d.class_code != 0) return d.vendor == kNvidia && (d.class_code >> 8) == 0x0680;
  bool nvidia = d.vendor == kNvidia || d.vendor_name.find("NVIDIA") != std::string::npos;
  return nvidia && d.class_name == "Bridge";
}

// "infiniband", "ethernet", or "" for anything else (bridges, DMA engines).
std::string HcaLink(const PciDevice& d) {
  bool mellanox = d.vendor == kMellanox || d.vendor_name.find("Mellanox") != std::string::npos;
  if (!mellanox) return "";
  if (d.class_code != 0) {
    unsigned subclass = d.class_code >> 8;
    if (subclass == 0x0207) return "infiniband";
    if (subclass == 0x0200) return "ethernet";
    return "";
  }
  if (d.class_name == "Infiniband controller") return "infiniband";
  if (d.class_name == "Ethernet controller") return "ethernet";
  return "";
}

std::string FirstWordAfter(const std::string& text, const std::string& prefix) {
  size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  return text.substr(at + prefix.size(), text.find(' ', at + prefix.size()) - at - prefix.size());
}

}  // namespace

std::string NvidiaGpuModel(unsigned device_id) {
  static const std::map<unsigned, const char*> kModels = {
      {0x1db1, "V100-SXM2-16GB"}, {0x1db4, "V100-PCIE-16GB"}, {0x1db5, "V100-SXM2-32GB"},
      {0x1db6, "V100-PCIE-32GB"}, {0x1eb8, "T4"},             {0x20b0, "A100-SXM4-40GB"},
      {0x20b2, "A100-SXM4-80GB"}, {0x20b5, "A100-PCIE-80GB"}, {0x20f1, "A100-PCIE-40GB"},
      {0x20b7, "A30"},            {0x2230, "RTX-A6000"},      {0x2235, "A40"},
      {0x2236, "A10"},            {0x2237, "A10G"},           {0x2330, "H100-SXM5-80GB"},
      {0x2331, "H100-PCIE-80GB"}, {0x2324, "H800"},           {0x2335, "H200-SXM5-141GB"},
      {0x2342, "GH200"},          {0x26b5, "L40"},            {0x26b9, "L40S"},
      {0x27b8, "L4"},             {0x2684, "GeForce-RTX-4090"}, {0x2901, "B200"},
      {0x2941, "B200 (GB200)"},
  };
  auto it = kModels.find(device_id);
  return it != kModels.end() ? it->second : "NVIDIA " + Hex4(device_id);
}

std::string MellanoxModel(unsigned device_id) {
  static const std::map<unsigned, const char*> kModels = {
      {0x1003, "ConnectX-3"},     {0x1007, "ConnectX-3 Pro"}, {0x1013, "ConnectX-4"},
      {0x1015, "ConnectX-4 Lx"},  {0x1016, "ConnectX-4 Lx VF"}, {0x1017, "ConnectX-5"},
      {0x1018, "ConnectX-5 VF"},  {0x1019, "ConnectX-5 Ex"},  {0x101b, "ConnectX-6"},
      {0x101c, "ConnectX-6 VF"},  {0x101d, "ConnectX-6 Dx"},  {0x101f, "ConnectX-6 Lx"},
      {0x1021, "ConnectX-7"},     {0x1023, "ConnectX-8"},     {0xa2d6, "BlueField-2"},
      {0xa2dc, "BlueField-3"},
  };
  auto it = kModels.find(device_id);
  return it != kModels.end() ? it->second : "Mellanox " + Hex4(device_id);
}

std::vector<PciDevice> ParseLspci(std::string_view text) {
  // "0000:18:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)"
  // "0008:01:00.0 3D controller: NVIDIA Corporation Device 2941 (rev a1)"
  static const std::regex kLine(R"(^(\S+)\s+([^:\[]+?)(?:\s+\[([0-9a-fA-F]{4})\])?:\s+(.*)$)");
  static const std::regex kIds(R"(\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\])");
  std::vector<PciDevice> devices;
  for (const std::string& raw : Split(text, '\n')) {
    std::string line(Trim(raw));
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) continue;
    PciDevice d;
    d.address = m[1];
    if (std::count(d.address.begin(), d.address.end(), ':') == 1) d.address = "0000:" + d.address;
    d.class_name = Trim(m[2].str());
    if (m[3].matched) d.class_code = ParseHex(m[3]) << 8;
    std::string rest = m[4];
    std::smatch ids;
    std::string last_ids;
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), kIds); it != std::sregex_iterator(); ++it) {
      ids = *it;
      last_ids = ids[0];
    }
    if (!last_ids.empty()) {
      d.vendor = ParseHex(ids[1]);
      d.device = ParseHex(ids[2]);
    }
    d.vendor_name = rest.find("NVIDIA") != std::string::npos     ? "NVIDIA"
                    : rest.find("Mellanox") != std::string::npos ? "Mellanox"
                                                                 : "";
    if (d.vendor == 0 && d.vendor_name == "NVIDIA") d.vendor = kNvidia;
    if (d.vendor == 0 && d.vendor_name == "Mellanox") d.vendor = kMellanox;
    if (d.device == 0) {
      std::string word = FirstWordAfter(rest, "Device ");
      if (word.size() == 4) d.device = ParseHex(word);
    }
    d.device_name = rest;
    devices.push_back(d);
  }
  return devices;
}

nlohmann::json ClassifyPci(const std::vector<PciDevice>& devices) {
  nlohmann::json gpus = nlohmann::json::array(), hcas = nlohmann::json::array();
  std::map<std::string, int> models;
  int ib_hcas = 0, nvswitches = 0;
  for (const PciDevice& d : devices) {
    if (IsNvswitch(d)) {
      ++nvswitches;
    } else if (IsGpu(d)) {
      std::string model = d.device ? NvidiaGpuModel(d.device) : d.device_name;
      ++models[model];
      gpus.push_back({{"address", d.address}, {"device_id", Hex4(d.device)}, {"model", model},
                      {"numa_node", d.numa_node}});
    } else if (std::string link = HcaLink(d); !link.empty()) {
      if (link == "infiniband") ++ib_hcas;
      hcas.push_back({{"address", d.address}, {"device_id", Hex4(d.device)},
                      {"model", d.device ? MellanoxModel(d.device) : d.device_name}, {"link", link},
                      {"numa_node", d.numa_node}});
    }
  }
  std::string gpu_model;
  for (const auto& [model, count] : models) gpu_model += (gpu_model.empty() ? "" : ", ") + model;
  return {{"gpus", gpus},         {"gpu_count", gpus.size()}, {"gpu_model", gpu_model},
          {"hcas", hcas},         {"hca_count", hcas.size()}, {"ib_hca_count", ib_hcas},
          {"nvswitch_count", nvswitches}};
}

IbPort ParseIbPortAttributes(std::string_view state, std::string_view phys_state, std::string_view rate,
                             std::string_view link_layer) {
  auto after_colon = [](std::string_view text) {
    size_t colon = text.find(':');
    return std::string(Trim(colon == std::string_view::npos ? text : text.substr(colon + 1)));
  };
  IbPort port;
  port.state = after_colon(state);
  port.phys_state = after_colon(phys_state);
  port.link_layer = std::string(Trim(link_layer));
  std::string rate_text(Trim(rate));
  port.rate_gbps = std::atof(rate_text.c_str());
  size_t open = rate_text.find('('), close = rate_text.find(')');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    port.rate_text = rate_text.substr(open + 1, close - open - 1);
  }
  return port;
}

nlohmann::json IbPortsToJson(const std::vector<IbPort>& ports) {
  nlohmann::json out = nlohmann::json::array();
  for (const IbPort& p : ports) {
    out.push_back({{"device", p.device},         {"port", p.port},           {"pci_address", p.pci_address},
                   {"state", p.state},           {"phys_state", p.phys_state}, {"rate_gbps", p.rate_gbps},
                   {"rate_text", p.rate_text},   {"link_layer", p.link_layer},
                   {"port_guid", p.port_guid.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.port_guid)},
                   {"lid", p.lid < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.lid)}});
  }
  return out;
}

std::vector<PciDevice> ReadPciDevices(const std::string& root) {
  std::vector<PciDevice> devices;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/sys/bus/pci/devices", ec)) {
    PciDevice d;
    d.address = entry.path().filename().string();
    d.vendor = ParseHex(ReadTrimmed(entry.path() / "vendor"));
    d.device = ParseHex(ReadTrimmed(entry.path() / "device"));
    d.class_code = ParseHex(ReadTrimmed(entry.path() / "class"));
    std::string numa = ReadTrimmed(entry.path() / "numa_node");
    d.numa_node = numa.empty() ? -1 : std::atoi(numa.c_str());
    devices.push_back(d);
  }
  std::sort(devices.begin(), devices.end(), [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return devices;
}

void ForEachIbDevice(const std::string& root,
                     const std::function<void(const std::filesystem::path&, const std::string&, const std::string&)>& visit) {
  std::set<std::string> seen;
  auto scan = [&](const std::filesystem::path& ib_dir, const std::string& pci_address) {
    std::error_code ec;
    for (const auto& device : std::filesystem::directory_iterator(ib_dir, ec)) {
      std::string name = device.path().filename().string();
      if (seen.insert(name).second) visit(device.path(), name, pci_address);
    }
  };
  std::error_code ec;
  for (const auto& pci : std::filesystem::directory_iterator(root + "/sys/bus/pci/devices", ec)) {
    scan(pci.path() / "infiniband", pci.path().filename().string());
  }
  scan(root + "/sys/class/infiniband", "");
}

std::vector<IbPort> ReadIbPorts(const std::string& root) {
  std::vector<IbPort> ports;
  ForEachIbDevice(root, [&](const std::filesystem::path& device, const std::string& name, const std::string& pci_address) {
    std::error_code ec;
    for (const auto& port_dir : std::filesystem::directory_iterator(device / "ports", ec)) {
      IbPort port = ParseIbPortAttributes(ReadTrimmed(port_dir.path() / "state"), ReadTrimmed(port_dir.path() / "phys_state"),
                                          ReadTrimmed(port_dir.path() / "rate"), ReadTrimmed(port_dir.path() / "link_layer"));
      port.device = name;
      port.port = std::atoi(port_dir.path().filename().c_str());
      port.pci_address = pci_address;
      port.port_guid = NormalizeGuid(ReadTrimmed(port_dir.path() / "gids" / "0"));
      if (std::string lid = ReadTrimmed(port_dir.path() / "lid"); !lid.empty()) {
        port.lid = static_cast<int>(std::strtol(lid.c_str(), nullptr, 0));
      }
      ports.push_back(port);
    }
  });
  std::sort(ports.begin(), ports.end(), [](const IbPort& a, const IbPort& b) {
    return std::tie(a.device, a.port) < std::tie(b.device, b.port);
  });
  return ports;
}

nlohmann::json ReadIbDevices(const std::string& root) {
  std::map<std::string, nlohmann::json> by_name;
  ForEachIbDevice(root, [&](const std::filesystem::path& device, const std::string& name, const std::string& pci_address) {
    auto text_or_null = [](const std::string& value) { return value.empty() ? nlohmann::json(nullptr) : nlohmann::json(value); };
    by_name[name] = {{"device", name},
                     {"pci_address", text_or_null(pci_address)},
                     {"model", text_or_null(ReadTrimmed(device / "hca_type"))},
                     {"firmware", text_or_null(ReadTrimmed(device / "fw_ver"))},
                     {"psid", text_or_null(ReadTrimmed(device / "board_id"))},
                     {"node_guid", text_or_null(NormalizeGuid(ReadTrimmed(device / "node_guid")))},
                     {"sys_image_guid", text_or_null(NormalizeGuid(ReadTrimmed(device / "sys_image_guid")))}};
  });
  nlohmann::json out = nlohmann::json::array();
  for (auto& [name, entry] : by_name) out.push_back(std::move(entry));
  return out;
}

std::string ReadTrimmed(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return std::string(Trim(text));
}

}  // namespace clusterctl::facts
