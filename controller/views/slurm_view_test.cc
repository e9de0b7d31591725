#include "controller/views/slurm_view.h"

#include <doctest/doctest.h>

#include "controller/catalog/template.h"
#include "controller/views/cluster_views.h"
#include "inventory/loader.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

nlohmann::json Facts(int cpus, int64_t memory_mib, int gpus) {
  return {{"cpu", {{"cpus", cpus}, {"sockets", 2}, {"cores_per_socket", cpus / 4}, {"threads_per_core", 2}}},
          {"memory", {{"total_mib", memory_mib}}},
          {"pci", {{"gpu_count", gpus}}}};
}

// A node with `count` GPUs of one PCI model, as the agent lists them.
nlohmann::json GpuFacts(int count, const std::string& model) {
  nlohmann::json facts = Facts(64, 1031891, count);
  facts["pci"]["gpus"] = nlohmann::json::array();
  for (int i = 0; i < count; ++i) facts["pci"]["gpus"].push_back({{"model", model}});
  return facts;
}

// The facts of a node whose Slurm can detect GPUs through NVML.
nlohmann::json WithNvml(nlohmann::json facts) {
  facts["slurm"] = {{"plugin_dir", "/usr/lib64/slurm"}, {"gpu_nvml", true}};
  facts["nvidia"] = {{"nvml_library", "/usr/lib64/libnvidia-ml.so.1"}};
  facts["nvidia_driver"] = "550.144.03";
  return facts;
}

using testing::InventoryFromText;

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
  Inventory inventory = InventoryFromText(kInventory);
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
  Inventory inventory = InventoryFromText("cluster: c\nhosts:\n  n1: {address: 10.0.0.1}\ngroups:\n  compute: {hosts: n1}\n");
  auto view = BuildSlurmView(inventory, {{"n1", Facts(4, 8000, 1)}});
  REQUIRE(view.ok());
  CHECK((*view)["nodes"][0]["real_memory"] == 8000 - 512);
  CHECK((*view)["nodes"][0]["gpu_files"] == "/dev/nvidia0");
  CHECK((*view)["partitions"][0]["name"] == "batch");
}

TEST_CASE("slurm view: bad partitions are errors that name the problem") {
  Inventory inventory = InventoryFromText("cluster: c\nvars:\n  slurm_partitions: [{name: a}, {name: a}]\nhosts:\n  n1: {address: 10.0.0.1}\n");
  auto view = BuildSlurmView(inventory, {});
  REQUIRE_FALSE(view.ok());
  CHECK(view.status().message() == "slurm_partitions names a twice");
  inventory = InventoryFromText("cluster: c\nvars:\n  slurm_partitions: [{name: a, group: nosuch}]\nhosts:\n  n1: {address: 10.0.0.1}\n");
  CHECK(BuildSlurmView(inventory, {}).status().message() == "slurm partition a: no group 'nosuch' in the inventory");
}

const char* kMixedInventory = R"(cluster: c
hosts:
  head: {address: 10.0.0.1}
  gpu[01-04]: {address: "10.0.0.[11-14]"}
  cpu01: {address: 10.0.0.21}
groups:
  controller: {hosts: head}
  compute: {hosts: ["gpu[01-04]", cpu01]}
)";

std::map<std::string, nlohmann::json> MixedFacts() {
  return {{"gpu01", GpuFacts(8, "H100-SXM5-80GB")}, {"gpu02", GpuFacts(8, "H100-SXM5-80GB")},
          {"gpu03", GpuFacts(8, "L40S")},           {"gpu04", GpuFacts(8, "L40S")},
          {"cpu01", Facts(64, 1031891, 0)}};
}

TEST_CASE("slurm view: GPUs of different models get separate typed classes") {
  // Given two H100 nodes and two L40S nodes with the same CPUs and memory,
  auto view = BuildSlurmView(InventoryFromText(kMixedInventory), MixedFacts());
  REQUIRE(view.ok());
  const nlohmann::json& nodes = (*view)["nodes"];
  // then each model is its own NodeName class with its type.
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0]["names"] == "cpu01");
  CHECK(nodes[0]["gres"].is_null());
  CHECK(nodes[0]["gpu_type"].is_null());
  CHECK(nodes[1]["names"] == "gpu[01-02]");
  CHECK(nodes[1]["gres"] == "gpu:h100:8");
  CHECK(nodes[1]["gpu_type"] == "h100");
  CHECK(nodes[2]["names"] == "gpu[03-04]");
  CHECK(nodes[2]["gres"] == "gpu:l40s:8");
  CHECK(nodes[2]["gpu_autodetect"] == false);
  // A node whose GPUs the facts list without models stays untyped.
  auto untyped = BuildSlurmView(InventoryFromText(kMixedInventory), {{"gpu01", Facts(64, 1031891, 2)}});
  REQUIRE(untyped.ok());
  CHECK((*untyped)["nodes"][0]["gres"] == "gpu:2");
  CHECK((*untyped)["nodes"][0]["gpu_type"].is_null());
}

TEST_CASE("slurm view: AccountingStorageTRES lists gres/gpu and one gres/gpu:TYPE per GPU type (issue 50)") {
  // Given H100 and L40S nodes,
  std::map<std::string, nlohmann::json> facts = MixedFacts();
  auto view = BuildSlurmView(InventoryFromText(kMixedInventory), facts);
  REQUIRE(view.ok());
  // then Slurm records GPU time in total and per model, types sorted;
  CHECK((*view)["accounting_tres"] == "gres/gpu,gres/gpu:h100,gres/gpu:l40s");
  // a new model that arrives by growing the cluster adds its one word;
  std::string grown = kMixedInventory;
  grown.replace(grown.find("gpu[01-04]\", cpu01"), 10, "gpu[01-05]");
  grown.replace(grown.find("gpu[01-04]: "), 10, "gpu[01-05]");
  grown.replace(grown.find("10.0.0.[11-14]"), 14, "10.0.0.[11-15]");
  Inventory bigger = InventoryFromText(grown);
  facts["gpu05"] = GpuFacts(4, "A100-SXM4-80GB");
  auto more = BuildSlurmView(bigger, facts);
  REQUIRE(more.ok());
  CHECK((*more)["accounting_tres"] == "gres/gpu,gres/gpu:a100,gres/gpu:h100,gres/gpu:l40s");
  // untyped GPUs and nodes without GPUs add no type: gres/gpu alone.
  auto untyped = BuildSlurmView(InventoryFromText(kMixedInventory),
                                {{"gpu01", Facts(64, 1031891, 2)}, {"cpu01", Facts(64, 1031891, 0)}});
  REQUIRE(untyped.ok());
  CHECK((*untyped)["accounting_tres"] == "gres/gpu");
}

TEST_CASE("slurm view: AutoDetect=nvml only where the facts show the plugin, NVML and a loaded driver") {
  std::map<std::string, nlohmann::json> facts = MixedFacts();
  facts["gpu03"] = WithNvml(facts["gpu03"]);
  facts["gpu04"] = WithNvml(facts["gpu04"]);
  facts["gpu04"]["nvidia_driver"] = nullptr;  // not loaded
  facts["cpu01"] = WithNvml(facts["cpu01"]);  // no GPUs: nothing to detect
  auto view = BuildSlurmView(InventoryFromText(kMixedInventory), facts);
  REQUIRE(view.ok());
  const nlohmann::json& nodes = (*view)["nodes"];
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[0]["gpu_autodetect"] == false);  // cpu01
  CHECK(nodes[1]["names"] == "gpu03");
  CHECK(nodes[1]["gpu_autodetect"] == true);
  CHECK(nodes[2]["names"] == "gpu04");
  CHECK(nodes[2]["gpu_autodetect"] == false);
  CHECK(nodes[3]["names"] == "gpu[01-02]");
  CHECK(nodes[3]["gpu_autodetect"] == false);  // Debian 12's Slurm: no gpu_nvml
  // The testbed's simulated module gives a version but is no driver NVML can use.
  facts["gpu03"]["nvidia"]["simulated"] = true;
  CHECK((*BuildSlurmView(InventoryFromText(kMixedInventory), facts))["nodes"][1]["gpu_autodetect"] == false);
  facts["gpu03"]["nvidia"]["simulated"] = false;
  CHECK((*BuildSlurmView(InventoryFromText(kMixedInventory), facts))["nodes"][1]["gpu_autodetect"] == true);
  facts["gpu03"]["nvidia"]["nvml_library"] = nullptr;
  CHECK((*BuildSlurmView(InventoryFromText(kMixedInventory), facts))["nodes"][1]["gpu_autodetect"] == false);

  Inventory never = InventoryFromText(std::string(kMixedInventory) + "vars: {slurm_gpu_autodetect: never}\n");
  facts["gpu03"] = WithNvml(facts["gpu03"]);
  auto off = BuildSlurmView(never, facts);
  REQUIRE(off.ok());
  for (const nlohmann::json& n : (*off)["nodes"]) CHECK(n["gpu_autodetect"] == false);
}

// slurm.conf and gres.conf as the roles render them (templates/), over the view.
std::string RenderRoleTemplate(const std::string& name, const nlohmann::json& slurm_view,
                               const nlohmann::json& host = nullptr) {
  Diagnostics d;
  auto t = Template::Parse(testing::ReadFixture(testing::SourceDir() + "/templates/" + name), name, d, 1, 1,
                           Template::FormatOf(name));
  REQUIRE_MESSAGE(t, d.ToString());
  const nlohmann::json context = {
      {"cluster", {{"name", "c"}, {"controller", {{"name", "head"}}}, {"backup_controller", nullptr}, {"slurm", slurm_view}}},
      {"slurm_state_dir", "/var/lib/slurm/slurmctld"}, {"slurm_spool_dir", "/var/lib/slurm/slurmd"},
      {"slurm_proctrack", "proctrack/cgroup"},         {"slurm_task_plugins", "task/cgroup"},
      {"slurm_select_parameters", "CR_Core_Memory"},   {"slurm_def_mem_per_cpu", 1024},
      {"slurm_return_to_service", 2},                  {"slurm_accounting", false},
      {"slurm_extra_config", ""},                      {"slurm_propagate_limits_except", "MEMLOCK,NOFILE"},
      {"slurm_epilog_gpu_cleanup", false},             {"slurm_health_check", false},                  {"slurm_controller_timeout", 60},
      {"slurm_node_timeout", 300},
      {"slurm_mpi_default", "pmix"},                  {"slurm_cred_line", "CryptoType=crypto/munge"},
      {"slurm_slurmctld_pid_file", "/run/slurmctld.pid"}, {"slurm_slurmd_pid_file", "/run/slurmd.pid"}};
  nlohmann::json with_host = context;
  if (!host.is_null()) with_host["host"] = host;
  std::string out = t->Render(with_host, d);
  CHECK_MESSAGE(!d.has_errors(), d.ToString());
  return out;
}

TEST_CASE("slurm.conf and gres.conf: typed lines per model, AutoDetect where NVML works") {
  std::map<std::string, nlohmann::json> facts = MixedFacts();
  facts["gpu03"] = WithNvml(facts["gpu03"]);
  facts["gpu04"] = WithNvml(facts["gpu04"]);
  auto view = BuildSlurmView(InventoryFromText(kMixedInventory), facts);
  REQUIRE(view.ok());
  const std::string slurm_conf = RenderRoleTemplate("slurm.conf.mustache", *view);
  CHECK(slurm_conf.find("\nNodeName=gpu[01-02] CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1011254 "
                        "Gres=gpu:h100:8 State=UNKNOWN\n") != std::string::npos);
  CHECK(slurm_conf.find("\nNodeName=gpu[03-04] CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1011254 "
                        "Gres=gpu:l40s:8 State=UNKNOWN\n") != std::string::npos);
  CHECK(slurm_conf.find("\nNodeName=cpu01 CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1011254 "
                        "State=UNKNOWN\n") != std::string::npos);
  CHECK(slurm_conf.find("\nGresTypes=gpu\n") != std::string::npos);
  const std::string gres_conf = RenderRoleTemplate("gres.conf.mustache", *view);
  const std::string lines = gres_conf.substr(gres_conf.find("\nNodeName=") + 1);
  CHECK(lines ==
        "NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-7]\n"
        "NodeName=gpu[03-04] AutoDetect=nvml\n");
}

}  // namespace
}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("slurm view: a node whose memory its reserve takes whole is left out and named, not the view's error") {
  // 1780b34 ended the whole run ("slurm_memory_reserve_mib of gpu02 leaves
  // it no memory for jobs", blaming a variable nobody set).
  Inventory inventory = testing::InventoryFromText(kInventory);
  std::map<std::string, nlohmann::json> facts = {
      {"gpu01", Facts(64, 1031891, 8)}, {"gpu02", Facts(64, 300, 8)}, {"fat01", Facts(128, 4000, 0)}};
  auto view = BuildSlurmView(inventory, facts);
  REQUIRE_MESSAGE(view.ok(), view.status().message());
  CHECK((*view)["node_names"] == "gpu01");
  CHECK((*view)["unknown"] == "fat01,gpu[02-04]");  // gpu03-04: no facts yet
  const nlohmann::json& problems = (*view)["host_problems"];
  REQUIRE(problems.size() == 2);
  CHECK(problems["gpu02"] ==
        "memory.total_mib is 300 MiB, and Slurm's default reserve (512 MiB) leaves it no memory for jobs");
  CHECK(problems["fat01"] ==
        "memory.total_mib is 4000 MiB, and its slurm_memory_reserve_mib (4096 MiB) leaves it no memory for jobs");
  CHECK((*view)["partitions"].size() == 1);  // big has no node left: Slurm refuses an empty partition
}

TEST_CASE("slurm view: a MIG layout's nodes get typed MIG GRES and their TRES; without NVML gres.conf includes their file") {
  Inventory inventory = InventoryFromText(R"(cluster: c
hosts:
  gpu[01-05]: {address: "10.0.0.[11-15]"}
groups:
  compute: {hosts: "gpu[01-05]"}
  mig: {hosts: "gpu[01-02]", vars: {nvidia_mig_layout: [3g.40gb, 3g.40gb]}}
  small: {hosts: "gpu[04-05]", vars: {nvidia_mig_layout: [all-1g.10gb]}}
)");
  std::map<std::string, nlohmann::json> facts = {{"gpu01", WithNvml(GpuFacts(8, "H100-SXM5-80GB"))},
                                                 {"gpu02", GpuFacts(8, "H100-SXM5-80GB")},
                                                 {"gpu03", WithNvml(GpuFacts(8, "H100-SXM5-80GB"))},
                                                 {"gpu04", WithNvml(GpuFacts(2, "A100-SXM4-80GB"))},
                                                 {"gpu05", WithNvml(GpuFacts(2, "A100-SXM4-40GB"))}};
  auto view = BuildSlurmView(inventory, facts);
  REQUIRE(view.ok());
  std::map<std::string, std::string> gres;
  for (const nlohmann::json& node : (*view)["nodes"]) gres[node["names"].get<std::string>()] = node["gres"].get<std::string>();
  CHECK(gres == std::map<std::string, std::string>{{"gpu01", "gpu:3g.40gb:16"},
                                                   {"gpu02", "gpu:3g.40gb:16"},  // no NVML: the same GRES, its own lines
                                                   {"gpu03", "gpu:h100:8"},
                                                   {"gpu04", "gpu:1g.10gb:14"},    // 7 a GPU on an 80 GB A100
                                                   {"gpu05", "gpu:1g.10gb:8"}});  // 4 a GPU on a 40 GB one
  CHECK((*view)["unknown"].is_null());
  CHECK((*view)[kViewHostProblems].empty());
  CHECK((*view)["accounting_tres"] == "gres/gpu,gres/gpu:1g.10gb,gres/gpu:3g.40gb,gres/gpu:h100");
  // gpu02's gres.conf names no device of its own (its MIG devices' files
  // exist only once the nvidia-mig role made them) and includes the file
  // that role writes; the other nodes' gres.conf does not.
  CHECK((*view)["per_host"] == nlohmann::json{{"gpu02", {{"mig_gres_file", "/etc/slurm/gres-mig.conf"}}}});
  const std::string on_gpu02 = RenderRoleTemplate("gres.conf.mustache", *view, {{"slurm", (*view)["per_host"]["gpu02"]}});
  CHECK(on_gpu02.find("\nInclude /etc/slurm/gres-mig.conf\n") != std::string::npos);
  CHECK(on_gpu02.find("NodeName=gpu02 ") == std::string::npos);
  CHECK(on_gpu02.find("NodeName=gpu01 AutoDetect=nvml\n") != std::string::npos);
  const std::string elsewhere = RenderRoleTemplate("gres.conf.mustache", *view, {{"slurm", nullptr}});
  CHECK(elsewhere.find("Include") == std::string::npos);
  CHECK(on_gpu02.substr(0, on_gpu02.find("# This node's MIG devices")) == elsewhere);
}

// Grace compute nodes beside x86 ones: each node's architecture (facts'
// kernel.arch) is a Slurm feature, so `sbatch -C aarch64` picks the Arm
// nodes; a cluster of one architecture gets no feature; a value slurm.conf
// could not take as a feature name gives none.
TEST_CASE("slurm.conf: a cluster of two architectures gives each node its architecture as a feature (issue 52)") {
  const auto with_arch = [](nlohmann::json facts, const std::string& arch) {
    facts["kernel"] = {{"release", "6.1.0-57"}, {"arch", arch}};
    return facts;
  };
  std::map<std::string, nlohmann::json> facts = {{"head", with_arch(Facts(16, 65536, 0), "x86_64")},
                                                 {"gpu01", with_arch(Facts(64, 1031891, 0), "x86_64")},
                                                 {"gpu02", with_arch(Facts(64, 1031891, 0), "x86_64")},
                                                 {"gpu03", with_arch(Facts(64, 1031891, 0), "aarch64")},
                                                 {"gpu04", with_arch(Facts(64, 1031891, 0), "x86_64 Features=evil")},
                                                 {"fat01", with_arch(Facts(128, 2063782, 0), "x86_64")}};
  auto view = BuildSlurmView(InventoryFromText(kInventory), facts);
  REQUIRE(view.ok());
  const std::string conf = RenderRoleTemplate("slurm.conf.mustache", *view);
  CHECK(conf.find("\nNodeName=gpu[01-02] CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1011254 "
                  "Features=x86_64 State=UNKNOWN\n") != std::string::npos);
  CHECK(conf.find("\nNodeName=gpu03 CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1011254 "
                  "Features=aarch64 State=UNKNOWN\n") != std::string::npos);
  CHECK(conf.find("\nNodeName=gpu04 CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1011254 "
                  "State=UNKNOWN\n") != std::string::npos);  // an architecture no feature can name: none
  CHECK(conf.find("evil") == std::string::npos);
  facts["gpu03"] = with_arch(Facts(64, 1031891, 0), "x86_64");
  auto one = BuildSlurmView(InventoryFromText(kInventory), facts);
  REQUIRE(one.ok());
  CHECK(RenderRoleTemplate("slurm.conf.mustache", *one).find("Features=") == std::string::npos);
}

}  // namespace clusterctl
