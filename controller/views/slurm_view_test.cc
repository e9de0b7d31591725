#include "controller/views/slurm_view.h"

#include <doctest/doctest.h>

#include "inventory/loader.h"

namespace clusterctl {
namespace {

nlohmann::json Facts(int cpus, int64_t memory_mib, int gpus) {
  return {{"cpu", {{"cpus", cpus}, {"sockets", 2}, {"cores_per_socket", cpus / 4}, {"threads_per_core", 2}}},
          {"memory", {{"total_mib", memory_mib}}},
          {"pci", {{"gpu_count", gpus}}}};
}

Inventory Load(const std::string& text) {
  Diagnostics d;
  auto inventory = ParseInventory(text, "inv.yaml", "/tmp", d);
  REQUIRE_MESSAGE(inventory, d.ToString());
  return *inventory;
}

const char* kInventory = R"(cluster: c
vars:
  slurm_partitions:
    - {name: gpu, default: true}
    - {name: big, group: bigmem, max_time: "2-00:00:00"}
hosts:
  head: {address: 10.0.0.1}
  gpu[01-04]: {address: "10.0.0.[11-14]"}
  fat01: {address: 10.0.0.21, vars: {slurm_memory_reserve_mib: 4096}}
groups:
  controller: {hosts: head}
  compute: {hosts: ["gpu[01-04]", fat01]}
  bigmem: {hosts: fat01}
)";

TEST_CASE("slurm view: identical nodes share one collapsed NodeName class") {
  Inventory inventory = Load(kInventory);
  std::map<std::string, nlohmann::json> facts = {
      {"head", Facts(16, 65536, 0)},       {"gpu01", Facts(64, 1031891, 8)}, {"gpu02", Facts(64, 1031891, 8)},
      {"gpu03", Facts(64, 1031891, 8)},    {"fat01", Facts(128, 2063782, 0)}};
  auto view = BuildSlurmView(inventory, facts);
  REQUIRE(view.ok());
  const nlohmann::json& nodes = (*view)["nodes"];
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[1]["names"] == "gpu[01-03]");
  CHECK(nodes[1]["cpus"] == 64);
  CHECK(nodes[1]["cores_per_socket"] == 16);
  CHECK(nodes[1]["real_memory"] == 1031891 - 1031891 / 50);
  CHECK(nodes[1]["gpus"] == 8);
  CHECK(nodes[1]["gpu_files"] == "/dev/nvidia[0-7]");
  CHECK(nodes[0]["names"] == "fat01");
  CHECK(nodes[0]["real_memory"] == 2063782 - 4096);  // the host's own reserve
  CHECK(nodes[0]["gpu_files"].is_null());
  CHECK((*view)["unknown"] == "gpu04");  // no facts yet: left out, not guessed
  CHECK((*view)["node_names"] == "fat01,gpu[01-03]");
  const nlohmann::json& partitions = (*view)["partitions"];
  REQUIRE(partitions.size() == 2);
  CHECK(partitions[0]["nodes"] == "fat01,gpu[01-03]");
  CHECK(partitions[0]["default"] == true);
  CHECK(partitions[1]["nodes"] == "fat01");
  CHECK(partitions[1]["max_time"] == "2-00:00:00");
}

TEST_CASE("slurm view: small nodes keep at least 512 MiB; one GPU is /dev/nvidia0") {
  Inventory inventory = Load("cluster: c\nhosts:\n  n1: {address: 10.0.0.1}\ngroups:\n  compute: {hosts: n1}\n");
  auto view = BuildSlurmView(inventory, {{"n1", Facts(4, 8000, 1)}});
  REQUIRE(view.ok());
  CHECK((*view)["nodes"][0]["real_memory"] == 8000 - 512);
  CHECK((*view)["nodes"][0]["gpu_files"] == "/dev/nvidia0");
  CHECK((*view)["partitions"][0]["name"] == "batch");
}

TEST_CASE("slurm view: bad partitions are errors that name the problem") {
  Inventory inventory = Load("cluster: c\nvars:\n  slurm_partitions: [{name: a}, {name: a}]\nhosts:\n  n1: {address: 10.0.0.1}\n");
  auto view = BuildSlurmView(inventory, {});
  REQUIRE_FALSE(view.ok());
  CHECK(view.status().message() == "slurm_partitions names a twice");
  inventory = Load("cluster: c\nvars:\n  slurm_partitions: [{name: a, group: nosuch}]\nhosts:\n  n1: {address: 10.0.0.1}\n");
  CHECK(BuildSlurmView(inventory, {}).status().message() == "slurm partition a: no group 'nosuch' in the inventory");
}

}  // namespace
}  // namespace clusterctl
