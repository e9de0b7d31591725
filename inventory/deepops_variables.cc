#include "inventory/deepops_variables.h"

#include <array>

#include "common/yaml_doc.h"

namespace clusterctl {
namespace {

using Json = nlohmann::json;

// chrony_config_server: a list of NTP servers (a single name is a list of one).
std::optional<Json> NtpServers(const Json& value) {
  if (value.is_string()) return Json::array({value});
  if (!value.is_array()) return std::nullopt;
  for (const Json& item : value) {
    if (!item.is_string()) return std::nullopt;
  }
  return value;
}

// nvidia_driver_ubuntu_use_open_kernel_modules: a boolean -> open | proprietary.
std::optional<Json> DriverModules(const Json& value) {
  std::optional<bool> open;
  if (value.is_boolean()) open = value.get<bool>();
  if (value.is_string()) open = ParseYamlBool(value.get<std::string>());
  if (!open) return std::nullopt;
  return Json(*open ? "open" : "proprietary");
}

// nvidia_driver_branch: clusterctl's is a string ("580"), whatever YAML made of it.
std::optional<Json> DriverBranch(const Json& value) {
  if (value.is_string()) return value;
  if (value.is_number_integer()) return Json(std::to_string(value.get<long long>()));
  return std::nullopt;
}

constexpr std::string_view kByGroup =
    "clusterctl decides by group membership (hosts in nfs_server, nfs_clients or monitoring get the role)";

constexpr std::array<DeepOpsVariable, 12> kVariables = {{
    {"chrony_config_server", "ntp_servers",
     "the controller syncs from these servers, every other host from the controller", NtpServers},
    {"nvidia_driver_ubuntu_use_open_kernel_modules", "nvidia_driver_modules", "true: open, false: proprietary",
     DriverModules},
    {"nvidia_driver_branch", "nvidia_driver_branch", "", DriverBranch},
    {"slurm_version", "",
     "DeepOps builds Slurm from SchedMD's source of this version; clusterctl's slurm_version pins the "
     "distribution's package version (e.g. 22.05.8-4+deb12u3)",
     nullptr},
    {"nfs_exports", "",
     "DeepOps's entries are /etc/exports options with the clients inside ('*(rw,sync)'); clusterctl's "
     "name path, clients (hosts, groups, networks) and options: write them by hand (docs/roles.md)",
     nullptr},
    {"nfs_mounts", "",
     "DeepOps's entries name the server with a Jinja expression; clusterctl's name an export of the "
     "nfs_server host: write them by hand (docs/roles.md)",
     nullptr},
    {"cuda_version", "",
     "DeepOps's is an apt package spec (cuda-toolkit=12.2.0-1); clusterctl's cuda_toolkit_versions lists "
     "NVIDIA's package suffixes (12-4): set it by hand",
     nullptr},
    {"slurm_enable_nfs_server", "", kByGroup, nullptr},
    {"slurm_enable_nfs_client_nodes", "", kByGroup, nullptr},
    {"slurm_enable_monitoring", "", kByGroup, nullptr},
    {"slurm_cluster_install_nvidia_driver", "",
     "clusterctl installs the driver on every host whose facts show NVIDIA GPUs", nullptr},
    {"slurm_cluster_install_cuda", "", "clusterctl installs CUDA toolkits where cuda_toolkit_versions is set",
     nullptr},
}};

}  // namespace

const DeepOpsVariable* FindDeepOpsVariable(std::string_view name) {
  for (const DeepOpsVariable& entry : kVariables) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

}  // namespace clusterctl
