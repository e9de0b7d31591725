#include "agent/resources/nvidia_mig_state.h"

#include <algorithm>

#include "common/strings.h"

namespace clusterctl::agent::nvidia_mig {
namespace {

using facts::MigProfile;

std::string Described(const std::vector<std::string>& profiles) { return profiles.empty() ? "none" : Join(profiles, ", "); }

template <class T>
Result<std::vector<T>> ParsedOrNone(std::string_view text, Result<std::vector<T>> (*parse)(std::string_view)) {
  if (text.empty()) return std::vector<T>{};
  return parse(text);
}

}  // namespace

Result<std::map<int, bool>> ParseMigModes(std::string_view text) {
  std::map<int, bool> modes;
  for (const std::string& line : Split(std::string(text), '\n')) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string> cells = Split(line, ',');
    const std::string mode = cells.size() == 2 ? std::string(Trim(cells[1])) : "";
    const std::string index = cells.empty() ? "" : std::string(Trim(cells[0]));
    if (cells.size() != 2 || index.empty() || index.size() > 4 || !IsAlnumOr(index, "") ||
        index.find_first_not_of("0123456789") != std::string::npos || (mode != "Enabled" && mode != "Disabled")) {
      return Status::InvalidArgument("nvidia-smi's MIG mode line '" + Printable(line, 60) +
                                     "' is not 'INDEX, Enabled|Disabled' (a GPU without MIG says [N/A])");
    }
    modes[std::stoi(index)] = mode == "Enabled";
  }
  return modes;
}

Result<std::vector<GpuState>> GpuStates(const std::map<int, bool>& modes, std::string_view lgip, std::string_view lgi,
                                        std::string_view lci) {
  auto offer = ParsedOrNone(lgip, &facts::ParseMigProfiles);
  auto instances = ParsedOrNone(lgi, &facts::ParseMigGpuInstances);
  auto computes = ParsedOrNone(lci, &facts::ParseMigComputeInstances);
  for (const Status& s : {offer.status(), instances.status(), computes.status()}) {
    if (!s.ok()) return s;
  }
  std::vector<GpuState> gpus;
  for (const auto& [index, enabled] : modes) {
    GpuState gpu;
    gpu.index = index;
    gpu.enabled = enabled;
    for (const MigProfile& p : *offer) {
      if (p.gpu == index) gpu.offer.push_back(p);
    }
    for (const facts::MigComputeInstance& ci : *computes) {
      if (ci.gpu == index) gpu.compute_instances.push_back(ci);
    }
    for (const facts::MigGpuInstance& gi : *instances) {
      if (gi.gpu != index) continue;
      gpu.gpu_instances.push_back(gi);
      gpu.instances.push_back(gi.profile);
      const bool computed = std::any_of(computes->begin(), computes->end(), [&](const facts::MigComputeInstance& ci) {
        return ci.gpu == gi.gpu && ci.gpu_instance == gi.id;
      });
      gpu.without_compute += computed ? 0 : 1;
    }
    std::sort(gpu.instances.begin(), gpu.instances.end());
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

Result<std::vector<MigProfile>> WantedOn(const Layout& layout, const GpuState& gpu) {
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

Result<std::string> Difference(const Layout& layout, const GpuState& gpu) {
  const std::string name = "GPU " + std::to_string(gpu.index);
  if (!gpu.enabled) {
    return name + ": MIG mode off -> on, instances " +
           Described(layout.all.empty() ? layout.profiles : std::vector<std::string>{"all-" + layout.all});
  }
  Result<std::vector<MigProfile>> wanted = WantedOn(layout, gpu);
  if (!wanted.ok()) return wanted.status();
  std::vector<std::string> want;
  for (const MigProfile& p : *wanted) want.push_back(p.name);
  std::sort(want.begin(), want.end());
  if (want == gpu.instances && gpu.without_compute == 0) return std::string();
  return name + ": instances " + Described(gpu.instances) + " -> " + Described(want) +
         (gpu.without_compute > 0 ? " (" + std::to_string(gpu.without_compute) + " without a compute instance)" : "");
}

}  // namespace clusterctl::agent::nvidia_mig
