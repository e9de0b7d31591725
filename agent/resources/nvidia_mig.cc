// nvidia_mig: every GPU of the node split into the MIG layout's GPU
// instances, each with its default compute instance (`layout`, the
// inventory's nvidia_mig_layout: [3g.40gb, 3g.40gb] or [all-1g.10gb]).
//
// Check: `nvidia-smi -L`, the GPUs' MIG mode, `nvidia-smi mig -lgip`,
// `-lgi` and `-lci` (read-only), compared GPU by GPU: the GPU instances'
// profiles as a multiset, each with a compute instance. The GPU's own
// `-lgip` says which profiles it offers (IDs, how many) and `all-PROFILE`
// means its total of that profile.
// Apply, only for a GPU that differs: `before` once (a drain), then MIG
// mode on (`nvidia-smi -i N -mig 1`; a GPU left "pending" until a reset
// fails the step, naming it), its compute and GPU instances destroyed, the
// layout's created largest first (`nvidia-smi mig -i N -cgi ID,... -C`),
// the result read back, then `after` once (slurmd re-reads its GPUs).
// With `gres_file` (Slurm without NVML), that file holds gres.conf's lines
// for the node's MIG devices (`node_name`'s MultipleFiles entries, from
// -lgi/-lci and the driver's mig-minors): written before `after`, and a
// file that differs from the devices is a change too (drained like one).
// A converged node runs no mutating command.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "agent/facts/nvidia_mig.h"
#include "agent/resources/node_files.h"
#include "agent/resources/nvidia_mig_layout.h"
#include "agent/resources/nvidia_mig_state.h"
#include "agent/resources/registry.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

using facts::MigProfile;
using nvidia_mig::GpuState;

// Runs a read-only nvidia-smi query; its stdout, or nullopt with `outcome` failed.
std::optional<std::string> Query(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv,
                                 std::string_view none_found = "") {
  CommandSpec spec;
  spec.argv = std::move(argv);
  CommandResult r = host.Run(spec, false);
  const std::string said = r.stdout_data + r.stderr_data;
  if (r.exit_code == 0) return r.stdout_data;
  if (!none_found.empty() && said.find(none_found) != std::string::npos) return std::string();  // nothing exists
  outcome.Fail(Join(spec.argv, " ") + " " + CommandFailureReason(spec, r) + ": " + Printable(Trim(said), 300));
  outcome.failed_command = Join(spec.argv, " ");
  return std::nullopt;
}

// The node's GPUs as MIG sees them; nullopt with `outcome` failed.
std::optional<std::vector<GpuState>> ReadNode(ResourceHost& host, ResourceOutcome& outcome) {
  auto modes_text = Query(host, outcome, {"nvidia-smi", "--query-gpu=index,mig.mode.current", "--format=csv,noheader"});
  if (!modes_text) return std::nullopt;
  Result<std::map<int, bool>> modes = nvidia_mig::ParseMigModes(*modes_text);
  if (!modes.ok()) {
    outcome.Fail(modes.status().message());
    return std::nullopt;
  }
  const bool any_enabled = std::any_of(modes->begin(), modes->end(), [](const auto& m) { return m.second; });
  std::optional<std::string> lgip = "", lgi = "", lci = "";
  if (any_enabled) {
    lgip = Query(host, outcome, {"nvidia-smi", "mig", "-lgip"});
    lgi = lgip ? Query(host, outcome, {"nvidia-smi", "mig", "-lgi"}, "No GPU instances found") : std::nullopt;
    lci = lgi ? Query(host, outcome, {"nvidia-smi", "mig", "-lci"}, "No compute instances found") : std::nullopt;
    if (!lci) return std::nullopt;
  }
  Result<std::vector<GpuState>> gpus = nvidia_mig::GpuStates(*modes, *lgip, *lgi, *lci);
  if (!gpus.ok()) {
    outcome.Fail(gpus.status().message());
    return std::nullopt;
  }
  return *gpus;
}

// What differs on `gpu`, "" when nothing (or with `outcome` failed).
std::string Difference(const nvidia_mig::Layout& layout, const GpuState& gpu, ResourceOutcome& outcome) {
  Result<std::string> differs = nvidia_mig::Difference(layout, gpu);
  if (!differs.ok()) {
    outcome.Fail(differs.status().message());
    return "";
  }
  return *differs;
}

bool Mutate(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv) {
  return RunOrFail(host, outcome, std::move(argv), true, "", std::chrono::minutes(10));
}

// Makes `gpu` hold the layout: MIG on, its instances replaced.
bool ApplyGpu(const nvidia_mig::Layout& layout, GpuState gpu, ResourceHost& host, ResourceOutcome& outcome) {
  const std::string index = std::to_string(gpu.index);
  if (!gpu.enabled) {
    if (!Mutate(host, outcome, {"nvidia-smi", "-i", index, "-mig", "1"})) return false;
    auto now = ReadNode(host, outcome);
    if (!now) return false;
    auto it = std::find_if(now->begin(), now->end(), [&gpu](const GpuState& g) { return g.index == gpu.index; });
    if (it == now->end() || !it->enabled) {
      outcome.Fail("GPU " + index + ": MIG mode is pending, not on: this GPU needs a reset (nvidia-smi -i " + index +
                   " -r, with nothing using it) or a reboot");
      return false;
    }
    gpu = *it;
  }
  Result<std::vector<MigProfile>> wanted = nvidia_mig::WantedOn(layout, gpu);
  if (!wanted.ok()) {
    outcome.Fail(wanted.status().message());
    return false;
  }
  if (!gpu.instances.empty()) {
    if (static_cast<int>(gpu.instances.size()) > gpu.without_compute && !Mutate(host, outcome, {"nvidia-smi", "mig", "-i", index, "-dci"})) return false;
    if (!Mutate(host, outcome, {"nvidia-smi", "mig", "-i", index, "-dgi"})) return false;
  }
  std::vector<std::string> ids;
  for (const MigProfile& p : *wanted) ids.push_back(std::to_string(p.id));
  return Mutate(host, outcome, {"nvidia-smi", "mig", "-i", index, "-cgi", Join(ids, ","), "-C"});
}

std::vector<std::string> Argv(const nlohmann::json& p, const char* key) {
  return p.contains(key) ? p[key].get<std::vector<std::string>>() : std::vector<std::string>{};
}

// After an apply: the node holds the layout, else the step fails saying what differs still.
ResourceOutcome& ReadBack(const nvidia_mig::Layout& layout, ResourceHost& host, ResourceOutcome& outcome) {
  std::optional<std::vector<GpuState>> gpus = ReadNode(host, outcome);
  if (!gpus) return outcome;
  for (const GpuState& gpu : *gpus) {
    if (std::string still = Difference(layout, gpu, outcome); !still.empty()) {
      return outcome.Fail("after the change, " + still);
    }
  }
  return outcome;
}

// gres.conf's lines for the node's MIG devices, where Slurm has no NVML to
// find them (gres.conf(5), MultipleFiles: a MIG device is its GPU's
// /dev/nvidiaN and the capability files of its GPU and compute instance,
// /dev/nvidia-caps/nvidia-capN, N from the driver's mig-minors; the GPU's
// minor taken to be its nvidia-smi index). One line per compute instance,
// typed by its GPU instance's profile; "" with `outcome` failed.
std::string MigGresLines(const std::vector<GpuState>& gpus, const std::string& node, ResourceHost& host,
                         ResourceOutcome& outcome) {
  std::string text = "# Written by clusterctl (the nvidia-mig role) from nvidia-smi mig -lgi, -lci and\n"
                     "# /proc/driver/nvidia-caps/mig-minors: this node's MIG devices, for gres.conf.\n";
  const bool any = std::any_of(gpus.begin(), gpus.end(), [](const GpuState& g) { return !g.compute_instances.empty(); });
  if (!any) return text;
  auto minors_text = Query(host, outcome, {"cat", "/proc/driver/nvidia-caps/mig-minors"});
  if (!minors_text) return "";
  Result<std::map<std::string, int>> minors = facts::ParseMigMinors(*minors_text);
  if (!minors.ok()) {
    outcome.Fail(minors.status().message());
    return "";
  }
  auto cap = [&](const std::string& name) -> std::string {
    auto it = minors->find(name);
    return it == minors->end() ? "" : ",/dev/nvidia-caps/nvidia-cap" + std::to_string(it->second);
  };
  for (const GpuState& gpu : gpus) {
    std::vector<facts::MigComputeInstance> cis = gpu.compute_instances;
    std::sort(cis.begin(), cis.end(), [](const auto& a, const auto& b) { return std::tie(a.gpu_instance, a.id) < std::tie(b.gpu_instance, b.id); });
    for (const facts::MigComputeInstance& ci : cis) {
      const std::string gi = "gpu" + std::to_string(gpu.index) + "/gi" + std::to_string(ci.gpu_instance);
      const std::string files = cap(gi + "/access") + cap(gi + "/ci" + std::to_string(ci.id) + "/access");
      if (std::count(files.begin(), files.end(), ',') != 2) {
        outcome.Fail("/proc/driver/nvidia-caps/mig-minors has no minor for " + gi + " or its compute instance " +
                     std::to_string(ci.id));
        return "";
      }
      text += "NodeName=" + node + " Name=gpu Type=" + facts::GpuInstanceProfileOf(ci.name) +
              " MultipleFiles=/dev/nvidia" + std::to_string(gpu.index) + files + "\n";
    }
  }
  return text;
}

// The gres file (`gres_file`, for `node_name`) differs from the node's MIG
// devices: what differs, "" when nothing or no gres_file. `lines` gets them.
std::string GresDifference(const nlohmann::json& p, const std::vector<GpuState>& gpus, ResourceHost& host,
                           ResourceOutcome& outcome, std::string& lines) {
  const std::string path = p.value("gres_file", std::string());
  if (path.empty()) return "";
  const std::string node = p.value("node_name", std::string());
  if (node.empty() || !IsAlnumOr(node, "-_.")) {
    outcome.Fail("node_name '" + Printable(node, 60) + "' is not a Slurm node name");
    return "";
  }
  lines = MigGresLines(gpus, node, host, outcome);
  if (outcome.failed) return "";
  const std::optional<std::string> now = ReadNodeFile(path);
  if (now && *now == lines) return "";
  const auto devices = std::count(lines.begin(), lines.end(), '\n') - 2;
  return path + ": " + (now ? "rewritten" : "written") + " with " + std::to_string(devices) + " MIG device(s)";
}

Status WriteGres(const nlohmann::json& p, const std::string& lines) {
  return WriteNodeFile(p["gres_file"].get<std::string>(), lines, 0644, 0, 0);
}

}  // namespace

ResourceOutcome NvidiaMigResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  Result<nvidia_mig::Layout> layout = nvidia_mig::ParseLayout(p["layout"].get<std::vector<std::string>>());
  if (!layout.ok()) return outcome.Fail("layout " + layout.status().message());
  std::optional<std::vector<GpuState>> gpus = ReadNode(host, outcome);
  if (!gpus) return outcome;
  if (gpus->empty()) return outcome.Fail("nvidia-smi lists no GPU");
  std::vector<GpuState> changing;
  for (const GpuState& gpu : *gpus) {
    std::string differs = Difference(*layout, gpu, outcome);
    if (outcome.failed) return outcome;
    if (differs.empty()) continue;
    outcome.Differs(differs);
    changing.push_back(gpu);
  }
  std::string lines;
  const std::string gres = changing.empty() ? GresDifference(p, *gpus, host, outcome, lines) : "";
  if (outcome.failed) return outcome;
  if (!gres.empty()) outcome.Differs(gres);
  if (!request.apply || (changing.empty() && gres.empty())) return outcome;
  if (std::vector<std::string> before = Argv(p, "before"); !before.empty() && !Mutate(host, outcome, before)) return outcome;
  for (const GpuState& gpu : changing) {
    if (!ApplyGpu(*layout, gpu, host, outcome)) return outcome;
  }
  if (ReadBack(*layout, host, outcome).failed) return outcome;
  if (!p.value("gres_file", std::string()).empty()) {
    std::optional<std::vector<GpuState>> now = ReadNode(host, outcome);
    if (!now) return outcome;
    GresDifference(p, *now, host, outcome, lines);
    if (outcome.failed) return outcome;
    if (Status written = WriteGres(p, lines); !written.ok()) return outcome.Fail(written.message());
  }
  if (std::vector<std::string> after = Argv(p, "after"); !after.empty() && !Mutate(host, outcome, after)) return outcome;
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kNvidiaMigKind(
    {"nvidia_mig",
     "every GPU split into the MIG layout's GPU instances (nvidia-smi mig), with `before` and `after` run once "
     "around a change",
     {P("layout", T::kStringList, true), P("before", T::kStringList), P("after", T::kStringList),
      P("gres_file", T::kString), P("node_name", T::kString)},
     {}},
    NvidiaMigResource);

}  // namespace

}  // namespace clusterctl::agent
