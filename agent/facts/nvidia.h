// The `nvidia` fact: the NVIDIA driver as loaded (version, open or
// proprietary kernel modules, the GPUs it drives), as installed (the
// kernel-module package, Fabric Manager) and what stands in its way
// (nouveau): enough to tell an installed driver that is not loaded yet (a
// reboot pending) from one that is missing or blocked.
//
// The parsers are pure; ReadNvidia only reads files under `root`. The GPU
// serials come from nvidia-smi, which the caller runs (gather.cc).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

// /proc/driver/nvidia/gpus/BUS/information -> {bus_id ("Bus Location",
// lower case), model, uuid, minor ("Device Minor", an int), serial (always
// null: MergeGpuSerials fills it)}; a line that is missing leaves null.
nlohmann::json ParseNvidiaGpuInformation(std::string_view text);

// A PCI address in the 4-hex-digit-domain, lower-case form sysfs uses:
// "00000000:18:00.0" (nvidia-smi) -> "0000:18:00.0"; "18:00.0" -> "0000:18:00.0".
std::string NormalizePciBusId(std::string_view text);

// The driver release a package version carries, without the epoch and the
// packaging revision: "3:560.35.03-1.el9" -> "560.35.03",
// "535.183.01-0ubuntu0.22.04.1" -> "535.183.01".
std::string UpstreamDriverVersion(std::string_view package_version);

// The installed NVIDIA kernel-module package, from the package facts
// ({name: version}): {package, version, upstream} or null. Looked up in this
// order, the first installed wins: nvidia-kernel-dkms,
// nvidia-kernel-open-dkms, nvidia-open-kernel-dkms, nvidia-dkms-* (Ubuntu),
// nvidia-kernel-source-*, kmod-nvidia-latest-dkms, kmod-nvidia-open-dkms,
// kmod-nvidia*, nvidia-kmod* (RPM).
nlohmann::json InstalledDriverOf(const nlohmann::json& packages);

// The version of nvidia-fabricmanager or nvidia-fabricmanager-NNN, or null.
nlohmann::json FabricmanagerOf(const nlohmann::json& packages);

// Sets "serial" of each of `gpus` (ParseNvidiaGpuInformation entries) from
// `nvidia-smi --query-gpu=pci.bus_id,serial,uuid --format=csv,noheader`,
// matched by bus id; "[N/A]" leaves it null. Returns "" or the reason the
// output was not understood (the lines that were are still used).
std::string MergeGpuSerials(nlohmann::json& gpus, std::string_view nvidia_smi_csv);

// The loaded nvidia kernel module: its version ("" when none is loaded) and
// which modules they are ("open", "proprietary", null when none is loaded).
// A real driver writes /proc/driver/nvidia/version ("Open Kernel Module"
// names the open ones: `proc_version`). Without it, /sys/module/nvidia/
// version (`sys_version`) and the kernel's taint flags of the module
// (`sys_taint`, /sys/module/nvidia/taint): the kernel sets P on loading a
// module whose licence is not GPL-compatible, as the proprietary nvidia.ko's
// "NVIDIA" is and the open modules' "Dual MIT/GPL" is not (a taint file
// that could not be read: null). The testbed's simulated module gives only
// these two files (facts.nvidia.simulated).
struct LoadedNvidiaModule {
  std::string version;
  nlohmann::json kernel_modules;
};
LoadedNvidiaModule LoadedNvidiaModuleOf(std::string_view proc_version, std::string_view sys_version, std::string_view sys_taint);

// {loaded_version, kernel_modules, nouveau_loaded, installed_driver,
//  fabricmanager, gpus: [...] by bus_id (only while a driver is loaded),
//  simulated (/sys/module/nvidia/SIMULATED: the testbed's stand-in module)}.
// `loaded_version` is facts.nvidia_driver, `kernel_modules` facts.gpudirect's.
nlohmann::json ReadNvidia(const std::string& root, const nlohmann::json& loaded_version,
                          const nlohmann::json& kernel_modules, const nlohmann::json& packages);

}  // namespace clusterctl::facts
