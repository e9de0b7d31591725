// The views read only facts that facts_check.cc bounds: a view that starts
// reading another fact fails here until the fact gets its row (and so its
// bounds, and the hostile-node suite's impossible values).
#include "controller/views/cluster_views.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "common/json_text.h"
#include "controller/engine/facts_check.h"
#include "controller/engine/planner.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

constexpr const char* kInventory = R"(version: 1
cluster: c
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.2, interfaces: {ib0: 10.1.0.2/24}}
  gpu02: {address: 10.0.0.3}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, gpu02]}
  monitoring: {hosts: [head]}
  nfs_server: {hosts: [head]}
  logs: {hosts: [head]}
)";

// A GPU node's facts with every section the agent sends that a view could read.
nlohmann::json FullFacts(const std::string& host) {
  return {{"hostname", host},
          {"os", {{"id", "debian"}, {"family", "debian"}, {"version_id", "12"}, {"version_codename", "bookworm"},
                  {"pretty_name", "Debian GNU/Linux 12 (bookworm)"}}},
          {"kernel", {{"release", "6.1.0-18-amd64"}, {"arch", "x86_64"}, {"version", "#1 SMP"}}},
          {"cpu", {{"cpus", 64}, {"sockets", 2}, {"cores_per_socket", 16}, {"threads_per_core", 2}, {"model", "AMD EPYC"}}},
          {"memory", {{"total_mib", 515000}, {"swap_mib", 0}}},
          {"pci", {{"gpu_count", 2}, {"hca_count", 1}, {"ib_hca_count", 1}, {"nvswitch_count", 0},
                   {"gpus", {{{"model", "NVIDIA H100 80GB HBM3"}, {"address", "0000:18:00.0"}},
                             {{"model", "NVIDIA H100 80GB HBM3"}, {"address", "0000:2a:00.0"}}}}}},
          {"nvidia", {{"gpus", {{{"model", "NVIDIA H100 80GB HBM3"}, {"serial", "1"}}}},
                      {"nvml_library", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"}, {"simulated", false}}},
          {"slurm", {{"gpu_nvml", true}, {"plugin_dir", "/usr/lib/x86_64-linux-gnu/slurm-wlm"}}},
          {"nvidia_driver", "550.54.15"},
          {"peer_memory", "nvidia_peermem"},
          {"kernels", {{"installed", {"6.1.0-18-amd64"}}}},
          {"systemd", true},
          {"network_stack", "systemd-networkd"},
          {"gpudirect", {{"kernel_modules", "open"}, {"recommended", "dmabuf"}, {"dmabuf", true}}},
          {"nfs", {{"kernel_client", true}, {"kernel_cachefiles", false}}},
          {"interfaces", {{{"name", "ib0"}, {"link_type", "infiniband"}, {"addresses", {"10.1.0.2"}}}}},
          {"modules", {"nvidia", "nvidia_peermem"}},
          {"ib_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "4: ACTIVE"}}}},
          {"packages", {{"slurmd", "22.05.8-4"}}},
          {"errors", nlohmann::json::object()}};
}

// `path` in CheckedFactPaths' form: list indices as `[]`.
bool Checked(const std::string& path) {
  static const std::vector<std::string> checked = CheckedFactPaths();
  return std::find(checked.begin(), checked.end(), path) != checked.end();
}

// Every value in `facts` that no checked fact holds, changed (a text, a
// number, a flag, null, each to something else of its kind or another).
void ChangeUnchecked(nlohmann::json& at, const std::string& path) {
  if (!path.empty() && Checked(path) && !at.is_object() && !(at.is_array() && !at.empty() && at[0].is_object())) return;
  if (at.is_object()) {
    for (auto& [key, value] : at.items()) ChangeUnchecked(value, path.empty() ? key : path + "." + key);
  } else if (at.is_array()) {
    for (nlohmann::json& element : at) ChangeUnchecked(element, path + "[]");
  } else if (at.is_string()) {
    at = at.get<std::string>() + "-changed";
  } else if (at.is_number()) {
    at = 7;
  } else if (at.is_boolean()) {
    at = !at.get<bool>();
  } else {
    at = "was null";
  }
}

}  // namespace

TEST_CASE("cluster views: what they build depends on no fact that facts_check.cc does not bound") {
  const Inventory inventory = testing::InventoryFromText(kInventory);
  std::map<std::string, nlohmann::json> facts, changed;
  for (const char* host : {"head", "gpu01", "gpu02"}) {
    facts[host] = FullFacts(host);
    changed[host] = FullFacts(host);
    ChangeUnchecked(changed[host], "");
  }
  CHECK(changed["gpu01"]["memory"]["swap_mib"] == 7);                         // an unchecked fact was changed
  CHECK(changed["gpu01"]["memory"]["total_mib"] == 515000);                   // a checked one was not
  CHECK(changed["gpu01"]["pci"]["gpus"][0]["address"] == "0000:18:00.0-changed");
  for (const ClusterView& view : ClusterViews()) {
    CAPTURE(view.name);
    auto with = view.build(inventory, facts, ControllerViewInputs());
    auto without = view.build(inventory, changed, ControllerViewInputs());
    REQUIRE_MESSAGE(with.ok(), with.status().message());
    REQUIRE(without.ok());
    CHECK(JsonText(*with) == JsonText(*without));
  }
}

}  // namespace clusterctl
