#include "controller/views/mig_gres.h"

#include <algorithm>
#include <vector>

#include "agent/resources/nvidia_mig_layout.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

using agent::nvidia_mig::GpuModel;

// The GPU model names the facts show, lower case: PCI's and the driver's.
std::string ModelNames(const nlohmann::json& facts) {
  std::string names;
  for (const char* section : {"pci", "nvidia"}) {
    if (!facts.is_object() || !facts.contains(section) || !facts[section].is_object()) continue;
    const nlohmann::json& gpus = facts[section].value("gpus", nlohmann::json::array());
    if (!gpus.is_array()) continue;
    for (const nlohmann::json& gpu : gpus) {
      if (gpu.is_object() && gpu.contains("model") && gpu["model"].is_string()) {
        names += AsciiLower(gpu["model"].get<std::string>()) + " ";
      }
    }
  }
  return names;
}

// "80gb" of a model whose largest profile is 7g.80gb.
std::string MemoryTag(const GpuModel& model) {
  const std::string_view full = model.profiles.back().name;
  return std::string(full.substr(full.find('.') + 1));
}

}  // namespace

Result<std::map<std::string, int64_t>> MigGresCounts(const nlohmann::json& layout, const nlohmann::json& facts,
                                                     int64_t gpus) {
  std::vector<std::string> items;
  for (const nlohmann::json& item : layout) items.push_back(item.is_string() ? item.get<std::string>() : "");
  Result<agent::nvidia_mig::Layout> parsed = agent::nvidia_mig::ParseLayout(items);
  if (!parsed.ok()) return Status::InvalidArgument("its nvidia_mig_layout " + parsed.status().message());
  const std::string names = ModelNames(facts);
  std::vector<std::vector<std::string>> fits, named;
  for (const GpuModel& model : agent::nvidia_mig::KnownGpuModels()) {
    Result<std::vector<std::string>> on = agent::nvidia_mig::ProfilesOn(*parsed, model);
    if (!on.ok()) continue;
    fits.push_back(*on);
    if (names.find(MemoryTag(model)) != std::string::npos) named.push_back(*on);
  }
  const std::vector<std::vector<std::string>>& chosen = named.size() == 1 ? named : fits;
  if (chosen.empty() || std::any_of(chosen.begin(), chosen.end(), [&](const auto& f) { return f != chosen[0]; })) {
    return Status::InvalidArgument("its nvidia_mig_layout (" + Join(items, ", ") +
                                   ") gives different GPU instances on the GPU models that offer it, and its facts' GPU "
                                   "model (" + std::string(Trim(names)) + ") does not say which: name the instances");
  }
  std::map<std::string, int64_t> counts;
  for (const std::string& profile : chosen[0]) counts[profile] += gpus;
  return counts;
}

}  // namespace clusterctl
