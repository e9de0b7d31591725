#include "agent/facts/nvidia.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "agent/facts/pci.h"
#include "agent/facts/text_parsers.h"
#include "common/strings.h"

namespace clusterctl::facts {
namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// The first package (by name) of `packages` that matches `glob`, or end().
nlohmann::json::const_iterator FirstMatching(const nlohmann::json& packages, std::string_view glob) {
  for (auto it = packages.begin(); it != packages.end(); ++it) {
    if (it.value().is_string() && GlobMatch(glob, it.key())) return it;
  }
  return packages.end();
}

nlohmann::json ReadGpus(const std::string& root) {
  nlohmann::json gpus = nlohmann::json::array();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/proc/driver/nvidia/gpus", ec)) {
    nlohmann::json gpu = ParseNvidiaGpuInformation(ReadTrimmed(entry.path() / "information"));
    if (gpu["bus_id"].is_null()) gpu["bus_id"] = NormalizePciBusId(entry.path().filename().string());
    gpus.push_back(std::move(gpu));
  }
  std::sort(gpus.begin(), gpus.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["bus_id"].get<std::string>() < b["bus_id"].get<std::string>();
  });
  return gpus;
}

}  // namespace

nlohmann::json ParseNvidiaGpuInformation(std::string_view text) {
  nlohmann::json gpu = {{"bus_id", nullptr}, {"model", nullptr}, {"uuid", nullptr}, {"minor", nullptr}, {"serial", nullptr}};
  for (const std::string& line : Split(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view key = Trim(std::string_view(line).substr(0, colon));
    const std::string value(Trim(std::string_view(line).substr(colon + 1)));
    if (value.empty()) continue;
    if (key == "Model") gpu["model"] = value;
    if (key == "GPU UUID") gpu["uuid"] = value;
    if (key == "Bus Location") gpu["bus_id"] = NormalizePciBusId(value);
    if (key == "Device Minor" && AllDigits(value) && value.size() < 10) gpu["minor"] = std::stoi(value);
  }
  return gpu;
}

std::string NormalizePciBusId(std::string_view text) {
  std::string id = AsciiLower(Trim(text));
  const size_t first = id.find(':');
  if (first == std::string::npos) return id;
  if (id.find(':', first + 1) == std::string::npos) return "0000:" + id;  // no domain
  std::string domain = id.substr(0, first);
  while (domain.size() > 4 && domain[0] == '0') domain.erase(0, 1);
  if (domain.size() < 4) domain.insert(0, 4 - domain.size(), '0');
  return domain + id.substr(first);
}

std::string UpstreamDriverVersion(std::string_view package_version) {
  std::string_view version = Trim(package_version);
  const size_t colon = version.find(':');
  if (colon != std::string_view::npos && AllDigits(version.substr(0, colon))) version.remove_prefix(colon + 1);
  return std::string(version.substr(0, version.find('-')));
}

nlohmann::json InstalledDriverOf(const nlohmann::json& packages) {
  static const char* const kPackages[] = {
      "nvidia-kernel-dkms",      "nvidia-kernel-open-dkms", "nvidia-open-kernel-dkms", "nvidia-dkms-*",
      "nvidia-kernel-source-*",  "kmod-nvidia-latest-dkms", "kmod-nvidia-open-dkms",   "kmod-nvidia*",
      "nvidia-kmod*"};
  if (!packages.is_object()) return nullptr;
  for (const char* glob : kPackages) {
    const auto found = FirstMatching(packages, glob);
    if (found == packages.end()) continue;
    const std::string version = found.value().get<std::string>();
    return {{"package", found.key()}, {"version", version}, {"upstream", UpstreamDriverVersion(version)}};
  }
  return nullptr;
}

nlohmann::json FabricmanagerOf(const nlohmann::json& packages) {
  if (!packages.is_object()) return nullptr;
  const std::string prefix = "nvidia-fabricmanager";
  for (const auto& [name, version] : packages.items()) {
    const bool branch = name.size() > prefix.size() + 1 && name[prefix.size()] == '-' && AllDigits(name.substr(prefix.size() + 1));
    if (version.is_string() && name.rfind(prefix, 0) == 0 && (name == prefix || branch)) return version;
  }
  return nullptr;
}

std::string MergeGpuSerials(nlohmann::json& gpus, std::string_view nvidia_smi_csv) {
  std::string problem;
  size_t listed = 0;
  for (const std::string& line : Split(nvidia_smi_csv, '\n')) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string> fields = Split(line, ',');
    if (fields.size() != 3 || Trim(fields[0]).find(':') == std::string_view::npos) {
      if (problem.empty()) problem = "unexpected nvidia-smi output: " + Printable(line);
      continue;
    }
    ++listed;
    const std::string bus_id = NormalizePciBusId(fields[0]);
    const std::string serial(Trim(fields[1]));
    for (nlohmann::json& gpu : gpus) {
      if (gpu.value("bus_id", nlohmann::json()) != bus_id) continue;
      gpu["serial"] = serial.empty() || serial.find("N/A") != std::string::npos ? nlohmann::json(nullptr) : nlohmann::json(serial);
    }
  }
  if (problem.empty() && listed == 0 && !gpus.empty()) problem = "nvidia-smi listed no GPUs";
  return problem;
}

LoadedNvidiaModule LoadedNvidiaModuleOf(std::string_view proc_version, std::string_view sys_version, std::string_view sys_taint) {
  const std::string from_proc = ParseNvidiaDriverVersion(proc_version);
  if (!from_proc.empty()) {
    const bool open = proc_version.find("Open Kernel Module") != std::string_view::npos;
    return {from_proc, open ? "open" : "proprietary"};
  }
  const std::string from_sys(Trim(sys_version));
  if (from_sys.empty()) return {"", nullptr};
  // A readable taint file holds at least its newline: empty is unknown.
  if (sys_taint.empty()) return {from_sys, nullptr};
  return {from_sys, sys_taint.find('P') == std::string_view::npos ? "open" : "proprietary"};
}

nlohmann::json ReadNvidia(const std::string& root, const nlohmann::json& loaded_version,
                          const nlohmann::json& kernel_modules, const nlohmann::json& packages) {
  std::error_code ec;
  return {{"loaded_version", loaded_version},
          {"kernel_modules", kernel_modules},
          {"nouveau_loaded", std::filesystem::is_directory(root + "/sys/module/nouveau", ec)},
          {"installed_driver", InstalledDriverOf(packages)},
          {"fabricmanager", FabricmanagerOf(packages)},
          {"gpus", loaded_version.is_string() ? ReadGpus(root) : nlohmann::json::array()},
          {"simulated", std::filesystem::exists(root + "/sys/module/nvidia/SIMULATED", ec)}};
}

}  // namespace clusterctl::facts
