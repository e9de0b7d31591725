#include "controller/views/slurm_view.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "common/json_text.h"
#include "common/json_fields.h"
#include "common/nvidia_facts.h"
#include "common/strings.h"
#include "controller/views/cluster_views.h"
#include "controller/views/gpu_type.h"
#include "controller/views/mig_gres.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

int64_t IntAt(const nlohmann::json& facts, const char* section, const char* field) {
  if (!facts.is_object() || !facts.contains(section) || !facts[section].is_object()) return -1;
  const nlohmann::json& value = facts[section].value(field, nlohmann::json());
  return value.is_number_integer() ? value.get<int64_t>() : -1;
}

// What must be equal for two nodes to share one NodeName line (and one
// gres.conf line): nodes with different GPU types get separate lines.
struct NodeShape {
  int64_t cpus, sockets, cores, threads, real_memory, gpus;
  std::string gpu_type;  // "" untyped
  bool nvml;             // gres.conf: AutoDetect=nvml instead of File=
  std::map<std::string, int64_t> mig = {};  // MIG profile -> devices, for a node with a MIG layout
  bool mig_files = false;                   // MIG without NVML: its gres.conf lines are the node's own file
  std::string arch = "";                     // the kernel's machine name (x86_64, aarch64); "" unknown
  bool operator<(const NodeShape& o) const {
    return std::tie(cpus, sockets, cores, threads, real_memory, gpus, gpu_type, nvml, mig, mig_files, arch) <
           std::tie(o.cpus, o.sockets, o.cores, o.threads, o.real_memory, o.gpus, o.gpu_type, o.nvml, o.mig, o.mig_files,
                    o.arch);
  }
};

// The node's architecture as the agent reports it (facts.kernel.arch, `uname
// -m`), when it is a word slurm.conf can take as a feature name (lower-case
// letters, digits, '_'; at most 32); else "" (unknown: no feature).
std::string NodeArch(const nlohmann::json& facts) {
  const nlohmann::json* kernel = MemberOf(facts, "kernel");
  const std::string text = kernel != nullptr ? TextAt(*kernel, "arch") : "";
  const bool word = !text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  return word ? text : "";
}

// A cluster of more than one architecture (Grace compute nodes beside x86
// ones): each node gets its architecture as a Slurm feature, so a job asks
// for one (`sbatch -C aarch64`). A cluster of one has none: nothing to choose.
bool MixedArchitectures(const std::map<NodeShape, std::vector<std::string>>& classes) {
  std::set<std::string> seen;
  for (const auto& entry : classes) {
    if (!entry.first.arch.empty()) seen.insert(entry.first.arch);
  }
  return seen.size() > 1;
}

std::string GpuFiles(int64_t gpus) {
  return gpus == 1 ? "/dev/nvidia0" : "/dev/nvidia[0-" + std::to_string(gpus - 1) + "]";
}

// slurmd can detect this node's GPUs through NVML: its Slurm has the
// gpu_nvml plugin (facts.slurm.gpu_nvml; Debian 12's slurm-wlm does not
// ship it), the driver's NVML library is installed (facts.nvidia.
// nvml_library) and a real driver is loaded (not the testbed's simulated
// one: facts.nvidia.simulated). Without all three slurmd would
// fail to load the plugin or find no GPU, so gres.conf names the devices.
bool NvmlUsable(const nlohmann::json& facts) {
  const nlohmann::json* slurm = MemberOf(facts, "slurm");
  const nlohmann::json* nvidia = MemberOf(facts, "nvidia");
  return slurm != nullptr && FlagAt(*slurm, "gpu_nvml") && nvidia != nullptr &&
         !TextAt(*nvidia, "nvml_library").empty() && !RealNvidiaDriver(facts).empty();
}

// Slurm's word for the node's GPUs in slurm.conf: "gpu:h100:8", or "gpu:8"
// untyped, or its MIG devices by profile ("gpu:1g.10gb:8,gpu:3g.40gb:8");
// null without GPUs.
nlohmann::json Gres(const NodeShape& shape) {
  if (shape.gpus <= 0) return nullptr;
  if (!shape.mig.empty()) {
    std::vector<std::string> words;
    for (const auto& [profile, count] : shape.mig) words.push_back("gpu:" + profile + ":" + std::to_string(count));
    return Join(words, ",");
  }
  return "gpu:" + (shape.gpu_type.empty() ? "" : shape.gpu_type + ":") + std::to_string(shape.gpus);
}

// slurm.conf's AccountingStorageTRES: the GPU TRES Slurm records and
// enforces beside its defaults (cpu, mem, node, ...): gres/gpu, and
// gres/gpu:TYPE for each GPU type of the nodes (sorted, so a new type from a
// grown cluster adds one word and reorders nothing). Without them sacct and
// sreport show no GPU time and a gres/gpu limit is never applied.
std::string AccountingTres(const std::map<NodeShape, std::vector<std::string>>& classes) {
  std::set<std::string> types;
  for (const auto& entry : classes) {
    if (entry.first.gpus > 0 && !entry.first.gpu_type.empty() && entry.first.mig.empty()) types.insert(entry.first.gpu_type);
    for (const auto& mig : entry.first.mig) types.insert(mig.first);
  }
  std::string tres = "gres/gpu";
  for (const std::string& type : types) tres += ",gres/gpu:" + type;
  return tres;
}

// A node with a MIG layout (nvidia_mig_layout): its GRES are the layout's
// MIG devices. AutoDetect=nvml finds them where Slurm has NVML; elsewhere
// (Debian's Slurm) gres.conf names each one's files (MultipleFiles), which
// only the node knows once its instances exist: the nvidia-mig role writes
// them to kMigGresFile and the node's gres.conf includes it. "" or the
// node's problem.
std::string AddMig(NodeShape& shape, const nlohmann::json& host_vars, const nlohmann::json& facts) {
  const nlohmann::json layout = host_vars.value("nvidia_mig_layout", nlohmann::json());
  if (!layout.is_array() || shape.gpus <= 0) return "";
  Result<std::map<std::string, int64_t>> counts = MigGresCounts(layout, facts, shape.gpus);
  if (!counts.ok()) return counts.status().message();
  shape.mig = *counts;
  shape.mig_files = !shape.nvml;
  return "";
}

// A class of nodes as slurm.conf's NodeName line and gres.conf read it;
// `features`: its architecture as a feature (a mixed cluster).
nlohmann::json NodeLine(const NodeShape& shape, const std::vector<std::string>& names, bool features) {
  return {{"names", CollapseHostList(names)},
          {"features", features && !shape.arch.empty() ? nlohmann::json(shape.arch) : nlohmann::json(nullptr)},
          {"cpus", shape.cpus},
          {"sockets", shape.sockets},
          {"cores_per_socket", shape.cores},
          {"threads_per_core", shape.threads},
          {"real_memory", shape.real_memory},
          {"gpus", shape.gpus},
          {"gpu_type", shape.gpu_type.empty() ? nlohmann::json(nullptr) : nlohmann::json(shape.gpu_type)},
          {"gres", Gres(shape)},
          {"gpu_autodetect", shape.nvml},
          {"gpu_files", shape.gpus > 0 && !shape.mig_files ? nlohmann::json(GpuFiles(shape.gpus)) : nlohmann::json(nullptr)}};
}

}  // namespace

namespace {

// One slurm_partitions entry, typed and safe to write into slurm.conf's
// PartitionName line (docs/security.md): a name Slurm accepts, a boolean
// default, a time limit, options on one line.
Status CheckPartition(const nlohmann::json& p) {
  if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
    return Status::InvalidArgument("each slurm_partitions entry needs a name: " + Printable(JsonText(p)));
  }
  const std::string name = p["name"].get<std::string>();
  const std::string shown = "slurm partition '" + Printable(name) + "'";
  if (!IsAlnumOr(name, "_-.")) return Status::InvalidArgument(shown + ": a name is letters, digits, '_', '-' and '.'");
  for (const char* key : {"group", "options"}) {
    if (p.contains(key) && !p[key].is_string()) return Status::InvalidArgument(shown + ": " + key + " must be a string");
  }
  if (p.contains("default") && !p["default"].is_boolean()) {
    return Status::InvalidArgument(shown + ": default must be true or false");
  }
  if (p.contains("max_time")) {
    const nlohmann::json& t = p["max_time"];
    const std::string text = t.is_string() ? t.get<std::string>() : t.is_number_unsigned() ? JsonText(t) : "";
    if (!(text == "INFINITE" || text == "UNLIMITED" || IsAlnumOr(text, "-:"))) {
      return Status::InvalidArgument(shown + ": max_time must be minutes, [days-]hours:minutes:seconds or INFINITE");
    }
  }
  const std::string options = p.value("options", std::string());
  for (char c : options) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status::InvalidArgument(shown + ": options must be one line (it would add lines to slurm.conf)");
    }
  }
  return Status::Ok();
}

}  // namespace

int64_t SlurmReservedMemoryMib(int64_t total_mib, const nlohmann::json& host_vars) {
  if (host_vars.contains("slurm_memory_reserve_mib") && host_vars["slurm_memory_reserve_mib"].is_number_integer()) {
    return host_vars["slurm_memory_reserve_mib"].get<int64_t>();
  }
  return std::max<int64_t>(512, total_mib / 50);
}

Result<nlohmann::json> BuildSlurmView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts) {
  const nlohmann::json& vars = inventory.cluster_vars;
  const std::string node_group = vars.value("slurm_node_group", std::string("compute"));
  const std::vector<std::string> members = inventory.MembersOf(node_group);
  const bool autodetect = TextAt(vars, "slurm_gpu_autodetect") != "never";  // the catalog allows auto, never

  std::map<NodeShape, std::vector<std::string>> classes;
  std::vector<std::string> known, unknown;
  nlohmann::json host_problems = nlohmann::json::object();
  for (const std::string& name : members) {
    auto it = facts.find(name);
    const Host* host = inventory.FindHost(name);
    const nlohmann::json no_facts;
    const nlohmann::json& f = it == facts.end() ? no_facts : it->second;
    NodeShape shape{IntAt(f, "cpu", "cpus"), IntAt(f, "cpu", "sockets"), IntAt(f, "cpu", "cores_per_socket"),
                    IntAt(f, "cpu", "threads_per_core"), IntAt(f, "memory", "total_mib"), IntAt(f, "pci", "gpu_count"),
                    NodeGpuType(f), false, {}, false, NodeArch(f)};
    shape.nvml = shape.gpus > 0 && autodetect && NvmlUsable(f);
    if (shape.cpus <= 0 || shape.sockets <= 0 || shape.cores <= 0 || shape.threads <= 0 || shape.real_memory <= 0 ||
        shape.gpus < 0) {
      unknown.push_back(name);
      continue;
    }
    const nlohmann::json& host_vars = host ? host->vars : nlohmann::json::object();
    if (std::string problem = AddMig(shape, host_vars, f); !problem.empty()) {
      host_problems[name] = problem;
      unknown.push_back(name);
      continue;
    }
    const int64_t reserved = SlurmReservedMemoryMib(shape.real_memory, host_vars);
    if (reserved >= shape.real_memory) {
      // The node's own memory against its reserve: that node's problem, not
      // the cluster's. It stays out of slurm.conf (unknown), and fails alone.
      const bool set = host_vars.contains("slurm_memory_reserve_mib");
      host_problems[name] = "memory.total_mib is " + std::to_string(shape.real_memory) + " MiB, and " +
                            (set ? "its slurm_memory_reserve_mib (" : "Slurm's default reserve (") +
                            std::to_string(reserved) + " MiB) leaves it no memory for jobs";
      unknown.push_back(name);
      continue;
    }
    shape.real_memory -= reserved;
    classes[shape].push_back(name);
    known.push_back(name);
  }

  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json per_host = nlohmann::json::object();
  const bool mixed = MixedArchitectures(classes);
  for (const auto& [shape, names] : classes) {
    nodes.push_back(NodeLine(shape, names, mixed));
    for (const std::string& name : names) {
      if (shape.mig_files) per_host[name] = {{"mig_gres_file", kMigGresFile}};
    }
  }
  // Stable order by first node name, so adding a class does not reorder the file.
  std::sort(nodes.begin(), nodes.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["names"].get<std::string>() < b["names"].get<std::string>();
  });

  const std::set<std::string> known_set(known.begin(), known.end());
  nlohmann::json partitions = nlohmann::json::array();
  nlohmann::json wanted = vars.value("slurm_partitions", nlohmann::json::array({{{"name", "batch"}, {"default", true}}}));
  if (!wanted.is_array()) return Status::InvalidArgument("slurm_partitions must be a list of {name, group, default, max_time, options}");
  std::set<std::string> names_seen;
  for (const nlohmann::json& p : wanted) {
    if (Status valid = CheckPartition(p); !valid.ok()) return valid;
    const std::string name = p["name"].get<std::string>();
    if (!names_seen.insert(name).second) return Status::InvalidArgument("slurm_partitions names " + name + " twice");
    const std::string group = p.value("group", node_group);
    if (!inventory.FindGroup(group) && group != "all" && group != node_group) {
      return Status::InvalidArgument("slurm partition " + name + ": no group '" + group + "' in the inventory");
    }
    std::vector<std::string> in_partition;
    for (const std::string& host : inventory.MembersOf(group)) {
      if (known_set.count(host)) in_partition.push_back(host);
    }
    if (in_partition.empty()) continue;  // Slurm refuses a partition without nodes
    partitions.push_back({{"name", name},
                          {"nodes", CollapseHostList(in_partition)},
                          {"default", p.value("default", false)},
                          {"max_time", p.contains("max_time") ? p["max_time"] : nlohmann::json("INFINITE")},
                          {"options", p.value("options", std::string())}});
  }
  return nlohmann::json{{"nodes", nodes},
                        {"partitions", partitions},
                        {"accounting_tres", AccountingTres(classes)},
                        {"node_names", known.empty() ? nlohmann::json(nullptr) : nlohmann::json(CollapseHostList(known))},
                        {"unknown", unknown.empty() ? nlohmann::json(nullptr) : nlohmann::json(CollapseHostList(unknown))},
                        {kViewHostProblems, host_problems},
                        {"per_host", per_host}};
}

}  // namespace clusterctl
