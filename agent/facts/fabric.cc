#include "agent/facts/fabric.h"

#include <cctype>
#include <filesystem>
#include <fstream>

#include "agent/facts/kernels.h"
#include "agent/facts/pci.h"
#include "agent/facts/text_parsers.h"
#include "common/strings.h"

namespace clusterctl::facts {
namespace {

bool Exists(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// A unit is enabled when a target's .wants/ links it (systemctl enable).
bool UnitEnabled(const std::string& root, const std::string& unit) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/etc/systemd/system", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 6 && name.compare(name.size() - 6, 6, ".wants") == 0 && Exists(entry.path() / unit)) return true;
  }
  return false;
}

}  // namespace

nlohmann::json RdmaStackOf(const nlohmann::json& packages) {
  auto version_of = [&](const char* name) -> nlohmann::json {
    if (!packages.is_object() || !packages.contains(name) || !packages[name].is_string()) return nullptr;
    return packages[name];
  };
  struct Marker {
    const char* package;
    const char* stack;
  };
  // The metapackage of each stack first: its version is the release admins name.
  static const Marker kMarkers[] = {{"doca-ofed", "doca_ofed"},       {"mlnx-ofed-all", "mlnx_ofed"},
                                    {"mlnx-ofed-basic", "mlnx_ofed"}, {"mlnx-ofed-kernel-only", "mlnx_ofed"},
                                    {"ofed-scripts", "mlnx_ofed"},    {"rdma-core", "inbox"}};
  for (const Marker& marker : kMarkers) {
    nlohmann::json version = version_of(marker.package);
    if (!version.is_null()) return {{"stack", marker.stack}, {"version", version}};
  }
  return {{"stack", nullptr}, {"version", nullptr}};
}

nlohmann::json PeerMemoryOf(const std::vector<std::string>& modules) {
  for (const char* name : {"nvidia_peermem", "nv_peer_mem"}) {
    for (const std::string& loaded : modules) {
      if (loaded == name) return name;
    }
  }
  return nullptr;
}

namespace {

// The leading number of a version ("550.54.14" -> 550, "44.0-2" -> 44);
// -1 when it does not start with one.
long LeadingNumber(const std::string& text) {
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return end == 0 || end > 9 ? -1 : std::stol(text.substr(0, end));
}

// A module's line in modules.dep ("kernel/.../name.ko[.xz|.zst|.gz]: deps");
// "" when it is not listed.
std::string ModuleLine(const std::string& modules_dep, const std::string& file_name) {
  for (const std::string& line : Split(modules_dep, '\n')) {
    const std::string path = line.substr(0, line.find(':'));
    const size_t slash = path.rfind('/');
    const std::string base = path.substr(slash == std::string::npos ? 0 : slash + 1);
    if (base == file_name || base.rfind(file_name + ".", 0) == 0) return line;
  }
  return "";
}

bool ModuleListed(const std::string& modules_dep, const std::string& file_name) {
  return !ModuleLine(modules_dep, file_name).empty();
}

// nvidia-peermem registers with ib_core's peer-memory API, which only
// NVIDIA's RDMA stack has: built without it, the module links no ib_core
// symbol and its init fails. Debian's DKMS package names the file
// nvidia-current-peermem.ko (modprobe's nvidia-peermem maps onto it).
bool NvidiaPeermemUsable(const std::string& modules_dep) {
  for (const char* file : {"nvidia-peermem.ko", "nvidia-current-peermem.ko"}) {
    const std::string line = ModuleLine(modules_dep, file);
    if (line.find("/ib_core.ko", line.find(':')) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

nlohmann::json GpudirectOf(const LoadedNvidiaModule& loaded, const std::string& kernel_release,
                           const nlohmann::json& packages, const nlohmann::json& rdma_stack,
                           const std::string& modules_dep) {
  nlohmann::json out;
  const std::string& driver = loaded.version;
  const bool open = loaded.kernel_modules == "open";
  out["kernel_modules"] = loaded.kernel_modules;
  bool rdma_dmabuf = false;
  if (rdma_stack.is_object() && rdma_stack.value("stack", nlohmann::json()).is_string()) {
    const std::string stack = rdma_stack["stack"].get<std::string>();
    rdma_dmabuf = stack != "inbox" || (packages.contains("rdma-core") && packages["rdma-core"].is_string() &&
                                       LeadingNumber(packages["rdma-core"].get<std::string>()) >= 34);
  }
  out["dmabuf"] = open && LeadingNumber(driver) >= 515 && !kernel_release.empty() && !KernelReleaseLess(kernel_release, "5.12") && rdma_dmabuf;
  out["nvidia_peermem"] = NvidiaPeermemUsable(modules_dep);
  out["nv_peer_mem"] = ModuleListed(modules_dep, "nv_peer_mem.ko");
  out["recommended"] = out["dmabuf"].get<bool>()           ? nlohmann::json("dmabuf")
                       : out["nvidia_peermem"].get<bool>() ? nlohmann::json("nvidia_peermem")
                       : out["nv_peer_mem"].get<bool>()    ? nlohmann::json("nv_peer_mem")
                                                           : nlohmann::json(nullptr);
  return out;
}

std::string DetectNetworkStack(const std::string& root) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/etc/netplan", ec)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".yaml" || ext == ".yml") return "netplan";
  }
  if (UnitEnabled(root, "NetworkManager.service")) return "NetworkManager";
  if (UnitEnabled(root, "systemd-networkd.service")) return "systemd-networkd";
  if (Exists(root + "/etc/network/interfaces") && Exists(root + "/sbin/ifup")) return "ifupdown";
  return "none";
}

void AddIpoibModes(nlohmann::json& interfaces, const std::string& root) {
  for (nlohmann::json& entry : interfaces) {
    if (!entry.contains("name") || !entry["name"].is_string()) continue;
    const std::string mode = ReadTrimmed(std::filesystem::path(root + "/sys/class/net") / entry["name"].get<std::string>() / "mode");
    if (!mode.empty()) entry["ipoib_mode"] = mode;
  }
}

}  // namespace clusterctl::facts
