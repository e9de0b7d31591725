#include "controller/engine/host_run_phase.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace clusterctl {
namespace {

// Function-local statics: registrations run during static initialisation,
// in an order nobody controls.
std::map<std::string, HostRunPhaseFactory>& Phases() {
  static std::map<std::string, HostRunPhaseFactory> phases;
  return phases;
}

std::mutex& PhasesMutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

HostRunPhaseRegistration::HostRunPhaseRegistration(const std::string& name, HostRunPhaseFactory make) {
  std::lock_guard<std::mutex> lock(PhasesMutex());
  if (!Phases().emplace(name, make).second) {
    std::fprintf(stderr, "host-run phase '%s' registered twice\n", name.c_str());
    std::abort();
  }
}

std::vector<std::unique_ptr<HostRunPhase>> MakeHostRunPhases(const HostRunPhaseInputs& inputs) {
  std::lock_guard<std::mutex> lock(PhasesMutex());
  std::vector<std::unique_ptr<HostRunPhase>> made;
  for (const auto& [name, make] : Phases()) {
    if (std::unique_ptr<HostRunPhase> phase = make(inputs)) made.push_back(std::move(phase));
  }
  return made;
}

std::vector<std::string> HostRunPhaseNames() {
  std::lock_guard<std::mutex> lock(PhasesMutex());
  std::vector<std::string> names;
  for (const auto& [name, make] : Phases()) names.push_back(name);
  return names;
}

}  // namespace clusterctl
