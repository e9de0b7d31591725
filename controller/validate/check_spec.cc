#include "controller/validate/check_spec.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/json_fields.h"
#include "common/nvidia_facts.h"

namespace clusterctl {
namespace {

constexpr int64_t kMaxCount = 1'000'000;

struct Registry {
  std::map<std::string, CheckSpec> specs;
  std::map<std::string, const ProbeSpec*> probes;  // by id
  bool read = false;  // CheckSpecs() was called: a later registration would be missed
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

[[noreturn]] void BuildMistake(const std::string& what) {
  std::fprintf(stderr, "clusterctl: check registry: %s\n", what.c_str());
  std::abort();
}

}  // namespace

NodeReadings NodeReadings::FromFacts(std::string host, nlohmann::json facts) {
  NodeReadings readings;
  readings.host = std::move(host);
  readings.facts = facts.is_object() ? std::move(facts) : nlohmann::json::object();
  const nlohmann::json& f = readings.facts;
  if (auto it = f.find("modules"); it != f.end() && it->is_array()) {
    for (const auto& m : *it) {
      if (m.is_string()) readings.modules.push_back(m.get<std::string>());
    }
  }
  if (auto pci = f.find("pci"); pci != f.end()) {
    readings.pci_gpus = static_cast<int>(CountAt(*pci, "gpu_count", kMaxCount));
    readings.nvswitches = static_cast<int>(CountAt(*pci, "nvswitch_count", kMaxCount));
  }
  readings.driver_version = RealNvidiaDriver(f);  // the testbed's simulated module is none
  return readings;
}

bool NodeReadings::DriverModuleLoaded() const {
  // A real module: the testbed's simulated one never counts, even where the
  // machine's own /proc/modules lists nvidia.
  return !SimulatedNvidiaDriver(facts) && std::find(modules.begin(), modules.end(), "nvidia") != modules.end();
}

bool NodeReadings::HasIbPorts() const {
  auto it = facts.find("ib_ports");
  return it != facts.end() && !it->empty();
}

const ToolOutput& NodeReadings::Output(const std::string& probe) const {
  auto it = outputs.find(probe);
  return it == outputs.end() ? NotRunOutput() : it->second;
}

CheckResult NodeView::Blocked(const std::string& check, const std::string& prerequisite, const std::string& why) const {
  if (blocked) return blocked(check, prerequisite, why);
  return Skip(check, CheckScope::kNode, host(), why);
}

std::vector<Argv> ProbeSpec::CommandsFor(const NodeView& view) const {
  if (command_for != nullptr) return {command_for(view)};
  return commands;
}

CheckRegistration::CheckRegistration(CheckSpec spec) {
  Registry& registry = TheRegistry();
  if (registry.read) BuildMistake(spec.name + " registers after the registry was read (during start-up)");
  for (const auto& [name, other] : registry.specs) {
    if (other.rank == spec.rank) BuildMistake(spec.name + " and " + name + " have the same rank");
  }
  if (spec.cluster_phase.run != nullptr && spec.verdict != nullptr) {
    BuildMistake(spec.name + " has a cluster phase and a node verdict");
  }
  for (const ProbeSpec* probe : spec.probes) {
    auto [it, added] = registry.probes.emplace(probe->id, probe);
    if (!added && it->second != probe) BuildMistake("two probes named '" + probe->id + "'");
  }
  std::string name = spec.name;
  if (!registry.specs.emplace(name, std::move(spec)).second) BuildMistake("two checks named '" + name + "'");
}

const std::vector<const CheckSpec*>& CheckSpecs() {
  static const std::vector<const CheckSpec*> ordered = [] {
    std::vector<const CheckSpec*> out;
    for (const auto& [name, spec] : TheRegistry().specs) out.push_back(&spec);
    std::sort(out.begin(), out.end(), [](const CheckSpec* a, const CheckSpec* b) { return a->rank < b->rank; });
    for (const CheckSpec* spec : out) {
      for (const Prerequisite& p : spec->prerequisites) {
        auto it = TheRegistry().specs.find(p.check);
        if (it == TheRegistry().specs.end()) BuildMistake(spec->name + " needs unknown check " + p.check);
        // A node verdict's prerequisite is judged before it, on the node, or it would never gate it.
        const CheckSpec& before = it->second;
        if (spec->verdict != nullptr && (before.verdict == nullptr || before.rank >= spec->rank || p.why == nullptr)) {
          BuildMistake(spec->name + "'s prerequisite " + p.check + " is not a node verdict judged before it, with a reason");
        }
      }
    }
    TheRegistry().read = true;
    return out;
  }();
  return ordered;
}

const CheckSpec* FindCheckSpec(const std::string& name) {
  const auto& specs = TheRegistry().specs;
  auto it = specs.find(name);
  return it == specs.end() ? nullptr : &it->second;
}

std::string UnmetRequirement(const CheckSpec& spec, const NodeView& view) {
  for (const Requirement& r : spec.requirements) {
    if (!r.holds(view)) return r.unmet(view);
  }
  return "";
}

std::vector<const ProbeSpec*> ProbesFor(const NodeView& view, const std::set<std::string>& needed) {
  std::vector<const ProbeSpec*> probes;
  for (const CheckSpec* spec : CheckSpecs()) {
    if (!needed.count(spec->name) || !UnmetRequirement(*spec, view).empty()) continue;
    for (const ProbeSpec* probe : spec->probes) {
      bool applies = probe->when == nullptr || probe->when(view.node);
      if (applies && std::find(probes.begin(), probes.end(), probe) == probes.end()) probes.push_back(probe);
    }
  }
  return probes;
}

bool RunsOnNodeAlone(const CheckSpec& spec) { return spec.scope == CheckScope::kNode && spec.verdict != nullptr; }

CheckResult JudgeNodeCheck(const CheckSpec& spec, const NodeView& view, const std::map<std::string, CheckResult>& judged) {
  if (std::string unmet = UnmetRequirement(spec, view); !unmet.empty()) {
    return Skip(spec.name, CheckScope::kNode, view.host(), unmet);
  }
  for (const Prerequisite& prerequisite : spec.prerequisites) {
    auto it = judged.find(prerequisite.check);
    if (it != judged.end() && it->second.outcome == CheckOutcome::kPass) continue;
    if (it != judged.end() && it->second.outcome == CheckOutcome::kSkip) {
      return Skip(spec.name, CheckScope::kNode, view.host(), it->second.detail);
    }
    return view.Blocked(spec.name, prerequisite.check, prerequisite.why(view));
  }
  return spec.verdict(view);
}

}  // namespace clusterctl
