#include "agent/resources/registry.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace clusterctl {
namespace agent {
namespace {

// Function-local statics: registrations run during static initialisation,
// in an order nobody controls.
std::map<std::string, ResourceKind>& Kinds() {
  static std::map<std::string, ResourceKind> kinds;
  return kinds;
}

std::mutex& KindsMutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

ResourceKindRegistration::ResourceKindRegistration(resources::ResourceSpec spec, ResourceFunction run) {
  std::lock_guard<std::mutex> lock(KindsMutex());
  const std::string name = spec.kind;
  if (!Kinds().emplace(name, ResourceKind{std::move(spec), std::move(run)}).second) {
    std::fprintf(stderr, "resource kind '%s' is registered twice\n", name.c_str());
    std::abort();
  }
}

const ResourceKind* FindResourceKind(const std::string& name) {
  auto it = Kinds().find(name);
  return it == Kinds().end() ? nullptr : &it->second;
}

}  // namespace agent

namespace resources {

const std::vector<ResourceSpec>& ResourceSpecs() {
  static const std::vector<ResourceSpec> specs = [] {
    std::vector<ResourceSpec> all;
    for (const auto& [name, kind] : agent::Kinds()) all.push_back(kind.spec);
    return all;
  }();
  return specs;
}

const ResourceSpec* FindResourceSpec(const std::string& kind) {
  const agent::ResourceKind* found = agent::FindResourceKind(kind);
  return found ? &found->spec : nullptr;
}

std::vector<std::string> ResourceKinds() {
  std::vector<std::string> names;
  for (const auto& [name, kind] : agent::Kinds()) names.push_back(name);
  return names;
}

}  // namespace resources
}  // namespace clusterctl
