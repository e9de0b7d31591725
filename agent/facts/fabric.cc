#include "agent/facts/fabric.h"

#include <filesystem>
#include <fstream>

#include "common/strings.h"

namespace clusterctl::facts {
namespace {

std::string ReadTrimmedFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return std::string(Trim(text));
}

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
    const std::string mode = ReadTrimmedFile(std::filesystem::path(root + "/sys/class/net") / entry["name"].get<std::string>() / "mode");
    if (!mode.empty()) entry["ipoib_mode"] = mode;
  }
}

}  // namespace clusterctl::facts
