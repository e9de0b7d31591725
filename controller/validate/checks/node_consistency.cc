// node.consistency (acceptance): every node of a peer group
// (validate_peer_group; default: every node measured) runs the same
// kernel, NVIDIA driver, GPU VBIOS, CUDA toolkit, HCA firmware, Slurm and
// BIOS version, read from the facts (kernel.release, a real nvidia_driver,
// ib_devices[].firmware, the cuda-toolkit-* and slurmd packages), nvidia-smi
// (vbios_version of each GPU) and DMI (/sys/class/dmi/id/bios_version). A node whose version
// differs from the one most of its group runs fails, naming both values;
// where no single version is the most common, every node of the group fails,
// listing who runs what. A version a node does not have (no
// GPU, no HCA, nvidia-smi failing) is not compared. The agent's version is
// not compared: every node runs the build this controller ships (by content
// hash), so it could never differ (docs/validation.md, "Acceptance").
#include <map>
#include <set>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/checks/acceptance.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "node.consistency";

const ProbeSpec kBios{.id = "dmi bios_version", .commands = {{"cat", "/sys/class/dmi/id/bios_version"}}, .timeout_s = 10};
const ProbeSpec kVbios{.id = "nvidia-smi vbios_version",
                       .commands = {{"nvidia-smi", "--query-gpu=vbios_version", "--format=csv,noheader"}},
                       .timeout_s = 30,
                       .when = [](const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); },
                       .executable = "/usr/bin/nvidia-smi"};

// The versions of one node, by what they are ("kernel"), absent where it has none.
using Versions = std::map<std::string, std::string>;

std::string SlurmVersion(const nlohmann::json& facts) {
  const nlohmann::json* packages = MemberOf(facts, "packages");
  for (const char* name : {"slurmd", "slurm-wlm", "slurm-smd-slurmd", "slurm"}) {
    if (packages != nullptr && !TextAt(*packages, name).empty()) return TextAt(*packages, name);
  }
  return "";
}

std::string HcaFirmware(const nlohmann::json& facts) {
  std::set<std::string> versions;
  const nlohmann::json* devices = MemberOf(facts, "ib_devices");
  if (devices != nullptr && devices->is_array()) {
    for (const nlohmann::json& d : *devices) {
      if (!TextAt(d, "firmware").empty()) versions.insert(TextAt(d, "firmware"));
    }
  }
  return Join({versions.begin(), versions.end()}, ",");
}

// The CUDA toolkits installed side by side (cuda-toolkit-12-4 12.4.1-1, ...): their versions, sorted.
std::string CudaToolkits(const nlohmann::json& facts) {
  std::set<std::string> versions;
  const nlohmann::json* packages = MemberOf(facts, "packages");
  if (packages != nullptr && packages->is_object()) {
    for (const auto& [name, version] : packages->items()) {
      if (name.rfind("cuda-toolkit-", 0) == 0 && version.is_string()) versions.insert(version.get<std::string>());
    }
  }
  return Join({versions.begin(), versions.end()}, ",");
}

// Every GPU's VBIOS, distinct and sorted: "96.00.89.00.01" (two versions on one node: "a,b").
std::string Vbios(const ToolOutput& out) {
  if (!out.Succeeded()) return "";
  std::set<std::string> versions;
  for (const std::string& line : Split(out.out, '\n')) {
    if (!Trim(line).empty()) versions.insert(std::string(Trim(line)));
  }
  return Join({versions.begin(), versions.end()}, ",");
}

Versions VersionsOf(const NodeReadings& node) {
  Versions v;
  const nlohmann::json* kernel = MemberOf(node.facts, "kernel");
  if (kernel != nullptr) v["kernel"] = TextAt(*kernel, "release");
  v["NVIDIA driver"] = node.driver_version;  // a real driver's: the testbed's simulated one is no version to compare
  v["HCA firmware"] = HcaFirmware(node.facts);
  v["CUDA"] = CudaToolkits(node.facts);
  v["GPU VBIOS"] = Vbios(node.Output(kVbios.id));
  v["Slurm"] = SlurmVersion(node.facts);
  const ToolOutput& bios = node.Output(kBios.id);
  if (bios.Succeeded()) v["BIOS"] = std::string(Trim(bios.out));
  for (auto it = v.begin(); it != v.end();) it = it->second.empty() ? v.erase(it) : std::next(it);
  return v;
}

// The version most nodes of the group run, with how many; "" when two share the top count.
std::pair<std::string, size_t> Majority(const std::map<std::string, std::vector<std::string>>& by_value) {
  std::string best;
  size_t count = 0;
  bool tie = false;
  for (const auto& [value, nodes] : by_value) {
    if (nodes.size() > count) {
      best = value, count = nodes.size(), tie = false;
    } else if (nodes.size() == count) {
      tie = true;
    }
  }
  return {tie ? "" : best, count};
}

// Who runs what: "6.1.0-21 on node01,node02; 6.1.0-18 on node03".
std::string WhoRunsWhat(const std::map<std::string, std::vector<std::string>>& by_value) {
  std::vector<std::string> parts;
  for (const auto& [value, nodes] : by_value) parts.push_back(value + " on " + Join(nodes, ","));
  return Join(parts, "; ");
}

// The node's differences from its group, one per version: "kernel 6.1.0-18 (4 of 5 peers: 6.1.0-21)".
std::vector<std::string> Differences(const Versions& mine,
                                     const std::map<std::string, std::map<std::string, std::vector<std::string>>>& group) {
  std::vector<std::string> found;
  for (const auto& [what, value] : mine) {
    const auto& by_value = group.at(what);
    if (by_value.size() < 2) continue;
    const auto [majority, count] = Majority(by_value);
    size_t nodes = 0;
    for (const auto& [v, n] : by_value) nodes += n.size();
    if (majority.empty()) {
      found.push_back(what + " " + value + ": no version most nodes run (" + WhoRunsWhat(by_value) + ")");
    } else if (value != majority) {
      found.push_back(what + " " + value + ", " + std::to_string(count) + " of " + std::to_string(nodes) +
                      " nodes run " + majority);
    }
  }
  return found;
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> nodes = MeasurableNodes(run, kCheck);
  // group -> version kind -> value -> nodes
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<std::string>>>> groups;
  std::map<std::string, std::pair<std::string, Versions>> of;  // node -> (group, versions)
  for (const std::string& node : nodes) {
    const NodeView view = run.View(node);
    const std::string group = StringVariable(view.vars, kPeerGroupVariable).value_or("");
    Versions versions = VersionsOf(view.node);
    for (const auto& [what, value] : versions) groups[group][what][value].push_back(node);
    of[node] = {group, std::move(versions)};
  }
  for (const std::string& node : nodes) {
    const auto& [group, versions] = of[node];
    std::vector<std::string> measured;
    for (const auto& [what, value] : versions) measured.push_back(what + " " + value);
    const std::vector<std::string> differences = Differences(versions, groups[group]);
    CheckResult r = differences.empty()
                        ? Pass(kCheck, kNode, node, "", "", "the same versions as its group")
                        : Fail(kCheck, kNode, node, Join(differences, "; "));
    r.measured = Join(measured, ", ");
    r.threshold = "== the group's";
    run.Add(std::move(r));
  }
}

const CheckRegistration kNodeConsistency({.name = kCheck,
                                          .scope = kNode,
                                          .summary = "the same kernel, NVIDIA driver, GPU VBIOS, CUDA, HCA firmware, Slurm and BIOS version as the rest of its peer group",
                                          .rank = 290,
                                          .probes = {&kBios, &kVbios},
                                          .cluster_phase = {.run = RunPhase},
                                          .level = CheckLevel::kAcceptance});

}  // namespace
}  // namespace clusterctl::checks
