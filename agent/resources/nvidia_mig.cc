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
// then `after` once (slurmd re-reads its GPUs) and the result read back.
// A converged node runs no mutating command.
#include <algorithm>
#include <map>
#include <optional>

#include "agent/facts/nvidia_mig.h"
#include "agent/resources/nvidia_mig_layout.h"
#include "agent/resources/registry.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

using facts::MigProfile;

// What the node shows for one GPU.
struct GpuMig {
  int index = 0;
  bool enabled = false;
  std::vector<std::string> instances;  // GPU instance profiles, sorted
  int without_compute = 0;             // GPU instances with no compute instance
  std::vector<MigProfile> offer;       // its -lgip rows (empty while MIG is off)
};

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

// `nvidia-smi --query-gpu=index,mig.mode.current --format=csv,noheader`: "0, Enabled".
Result<std::map<int, bool>> ParseModes(const std::string& text) {
  std::map<int, bool> modes;
  for (const std::string& line : Split(text, '\n')) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string> cells = Split(line, ',');
    const std::string mode = cells.size() == 2 ? std::string(Trim(cells[1])) : "";
    const std::string index = cells.empty() ? "" : std::string(Trim(cells[0]));
    if (cells.size() != 2 || index.empty() || index.size() > 4 || !IsAlnumOr(index, "") ||
        (mode != "Enabled" && mode != "Disabled")) {
      return Status::InvalidArgument("nvidia-smi's MIG mode line '" + Printable(line, 60) +
                                     "' is not 'INDEX, Enabled|Disabled' (a GPU without MIG says [N/A])");
    }
    modes[std::stoi(index)] = mode == "Enabled";
  }
  return modes;
}

// The node's GPUs as MIG sees them; nullopt with `outcome` failed.
std::optional<std::vector<GpuMig>> ReadNode(ResourceHost& host, ResourceOutcome& outcome) {
  auto modes_text = Query(host, outcome, {"nvidia-smi", "--query-gpu=index,mig.mode.current", "--format=csv,noheader"});
  if (!modes_text) return std::nullopt;
  Result<std::map<int, bool>> modes = ParseModes(*modes_text);
  if (!modes.ok()) {
    outcome.Fail(modes.status().message());
    return std::nullopt;
  }
  std::vector<GpuMig> gpus;
  bool any_enabled = false;
  for (const auto& [index, enabled] : *modes) {
    gpus.push_back({index, enabled, {}, 0, {}});
    any_enabled = any_enabled || enabled;
  }
  if (!any_enabled) return gpus;
  auto lgip = Query(host, outcome, {"nvidia-smi", "mig", "-lgip"});
  auto lgi = lgip ? Query(host, outcome, {"nvidia-smi", "mig", "-lgi"}, "No GPU instances found") : std::nullopt;
  auto lci = lgi ? Query(host, outcome, {"nvidia-smi", "mig", "-lci"}, "No compute instances found") : std::nullopt;
  if (!lci) return std::nullopt;
  auto offer = facts::ParseMigProfiles(*lgip);
  auto instances = lgi->empty() ? Result<std::vector<facts::MigGpuInstance>>(std::vector<facts::MigGpuInstance>{})
                                 : facts::ParseMigGpuInstances(*lgi);
  auto computes = lci->empty() ? Result<std::vector<facts::MigComputeInstance>>(std::vector<facts::MigComputeInstance>{})
                                : facts::ParseMigComputeInstances(*lci);
  for (const Status& s : {offer.status(), instances.status(), computes.status()}) {
    if (s.ok()) continue;
    outcome.Fail(s.message());
    return std::nullopt;
  }
  for (GpuMig& gpu : gpus) {
    for (const MigProfile& p : *offer) {
      if (p.gpu == gpu.index) gpu.offer.push_back(p);
    }
    for (const facts::MigGpuInstance& gi : *instances) {
      if (gi.gpu != gpu.index) continue;
      gpu.instances.push_back(gi.profile);
      const bool computed = std::any_of(computes->begin(), computes->end(), [&](const facts::MigComputeInstance& ci) {
        return ci.gpu == gi.gpu && ci.gpu_instance == gi.id;
      });
      gpu.without_compute += computed ? 0 : 1;
    }
    std::sort(gpu.instances.begin(), gpu.instances.end());
  }
  return gpus;
}

// The profile IDs the layout needs on `gpu`, largest first, or why its -lgip does not offer them.
Result<std::vector<MigProfile>> Wanted(const nvidia_mig::Layout& layout, const GpuMig& gpu) {
  auto find = [&gpu](const std::string& name) -> const MigProfile* {
    for (const MigProfile& p : gpu.offer) {
      if (p.name == name) return &p;
    }
    return nullptr;
  };
  std::vector<MigProfile> wanted;
  const std::vector<std::string> names = layout.all.empty() ? layout.profiles : std::vector<std::string>{layout.all};
  for (const std::string& name : names) {
    const MigProfile* p = find(name);
    if (!p) return Status::InvalidArgument("GPU " + std::to_string(gpu.index) + " offers no MIG profile " + name);
    for (int i = 0; i < (layout.all.empty() ? 1 : p->total); ++i) wanted.push_back(*p);
  }
  for (const MigProfile& p : wanted) {
    if (std::count_if(wanted.begin(), wanted.end(), [&p](const MigProfile& q) { return q.id == p.id; }) > p.total) {
      return Status::InvalidArgument("GPU " + std::to_string(gpu.index) + " holds at most " + std::to_string(p.total) + " " + p.name);
    }
  }
  std::stable_sort(wanted.begin(), wanted.end(), [](const MigProfile& a, const MigProfile& b) {
    return std::stoi(a.name) > std::stoi(b.name);  // "3g.40gb" -> 3: compute slices
  });
  return wanted;
}

std::string Described(const std::vector<std::string>& profiles) { return profiles.empty() ? "none" : Join(profiles, ", "); }

// What differs on `gpu`, "" when nothing; `wanted` is filled while MIG is on.
std::string Difference(const nvidia_mig::Layout& layout, const GpuMig& gpu, ResourceOutcome& outcome,
                       std::vector<MigProfile>& wanted) {
  const std::string name = "GPU " + std::to_string(gpu.index);
  if (!gpu.enabled) return name + ": MIG mode off -> on, instances " + Described(layout.all.empty() ? layout.profiles : std::vector<std::string>{"all-" + layout.all});
  Result<std::vector<MigProfile>> w = Wanted(layout, gpu);
  if (!w.ok()) {
    outcome.Fail(w.status().message());
    return "";
  }
  wanted = *w;
  std::vector<std::string> want;
  for (const MigProfile& p : wanted) want.push_back(p.name);
  std::sort(want.begin(), want.end());
  if (want == gpu.instances && gpu.without_compute == 0) return "";
  return name + ": instances " + Described(gpu.instances) + " -> " + Described(want) +
         (gpu.without_compute > 0 ? " (" + std::to_string(gpu.without_compute) + " without a compute instance)" : "");
}

bool Mutate(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv) {
  return RunOrFail(host, outcome, std::move(argv), true, "", std::chrono::minutes(10));
}

// Makes `gpu` hold the layout: MIG on, its instances replaced.
bool ApplyGpu(const nvidia_mig::Layout& layout, GpuMig gpu, ResourceHost& host, ResourceOutcome& outcome) {
  const std::string index = std::to_string(gpu.index);
  if (!gpu.enabled) {
    if (!Mutate(host, outcome, {"nvidia-smi", "-i", index, "-mig", "1"})) return false;
    auto now = ReadNode(host, outcome);
    if (!now) return false;
    auto it = std::find_if(now->begin(), now->end(), [&gpu](const GpuMig& g) { return g.index == gpu.index; });
    if (it == now->end() || !it->enabled) {
      outcome.Fail("GPU " + index + ": MIG mode is pending, not on: this GPU needs a reset (nvidia-smi -i " + index +
                   " -r, with nothing using it) or a reboot");
      return false;
    }
    gpu = *it;
  }
  Result<std::vector<MigProfile>> wanted = Wanted(layout, gpu);
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
  std::optional<std::vector<GpuMig>> gpus = ReadNode(host, outcome);
  if (!gpus) return outcome;
  for (const GpuMig& gpu : *gpus) {
    std::vector<MigProfile> wanted;
    if (std::string still = Difference(layout, gpu, outcome, wanted); !still.empty()) {
      return outcome.Fail("after the change, " + still);
    }
  }
  return outcome;
}

}  // namespace

ResourceOutcome NvidiaMigResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  Result<nvidia_mig::Layout> layout = nvidia_mig::ParseLayout(p["layout"].get<std::vector<std::string>>());
  if (!layout.ok()) return outcome.Fail("layout " + layout.status().message());
  std::optional<std::vector<GpuMig>> gpus = ReadNode(host, outcome);
  if (!gpus) return outcome;
  if (gpus->empty()) return outcome.Fail("nvidia-smi lists no GPU");
  std::vector<GpuMig> changing;
  for (const GpuMig& gpu : *gpus) {
    std::vector<MigProfile> wanted;
    std::string differs = Difference(*layout, gpu, outcome, wanted);
    if (outcome.failed) return outcome;
    if (differs.empty()) continue;
    outcome.Differs(differs);
    changing.push_back(gpu);
  }
  if (!request.apply || changing.empty()) return outcome;
  if (std::vector<std::string> before = Argv(p, "before"); !before.empty() && !Mutate(host, outcome, before)) return outcome;
  for (const GpuMig& gpu : changing) {
    if (!ApplyGpu(*layout, gpu, host, outcome)) return outcome;
  }
  if (std::vector<std::string> after = Argv(p, "after"); !after.empty() && !Mutate(host, outcome, after)) return outcome;
  return ReadBack(*layout, host, outcome);
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kNvidiaMigKind(
    {"nvidia_mig",
     "every GPU split into the MIG layout's GPU instances (nvidia-smi mig), with `before` and `after` run once "
     "around a change",
     {P("layout", T::kStringList, true), P("before", T::kStringList), P("after", T::kStringList)},
     {}},
    NvidiaMigResource);

}  // namespace

}  // namespace clusterctl::agent
