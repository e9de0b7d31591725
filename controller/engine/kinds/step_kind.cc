#include "controller/engine/kinds/step_kind.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "common/json_text.h"
#include "controller/catalog/template.h"
#include "inventory/inventory_file.h"

namespace clusterctl {
namespace {

// Function-local statics: registrations run during static initialisation,
// in an order nobody controls.
std::map<std::string, std::unique_ptr<StepKind>>& Kinds() {
  static std::map<std::string, std::unique_ptr<StepKind>> kinds;
  return kinds;
}

std::mutex& KindsMutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

StepKindRegistration::StepKindRegistration(const std::string& kind, std::unique_ptr<StepKind> controller_side) {
  std::lock_guard<std::mutex> lock(KindsMutex());
  if (!Kinds().emplace(kind, std::move(controller_side)).second) {
    std::fprintf(stderr, "the controller side of kind '%s' is registered twice\n", kind.c_str());
    std::abort();
  }
}

const StepKind& FindStepKind(const std::string& kind) {
  static const StepKind defaults;
  auto it = Kinds().find(kind);
  return it == Kinds().end() ? defaults : *it->second;
}

bool StepKind::ChangesPackageSources(const PlannedStep& step) const {
  auto path = step.params.find("path");
  if (path == step.params.end() || !path->is_string()) return false;
  const std::string& p = path->get_ref<const std::string&>();
  for (const char* sources : {"/etc/apt/", "/etc/yum.repos.d/", "/etc/dnf/"}) {
    if (p.rfind(sources, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> StepKindsWithControllerSide() {
  std::vector<std::string> names;
  for (const auto& [name, kind] : Kinds()) names.push_back(name);
  return names;
}

std::optional<std::string> KindPlanning::InventoryFile(const std::string& param, const nlohmann::json& params) const {
  const nlohmann::json& value = params[param];
  auto resolved =
      ResolveInventoryFile(inputs.inventory->base_dir, value.is_string() ? value.get<std::string>() : JsonText(value));
  if (resolved.ok()) return *resolved;
  std::string origin;
  if (auto raw = step.params.find(param); raw != step.params.end() && raw->is_string()) {
    if (auto name = SingleTagName(raw->get<std::string>())) origin = " (variable " + *name + ")";
  }
  diagnostics.Error(step.where, "'" + step.name + "' for " + host.name + ": " + step.kind + " " + param + origin + " " +
                                    resolved.status().message());
  return std::nullopt;
}

std::optional<std::string> KindPlanning::ReadInventoryFile(const std::string& param, const nlohmann::json& params,
                                                           const std::string& what) const {
  const std::optional<std::string> path = InventoryFile(param, params);
  if (!path) return std::nullopt;
  std::ifstream in(*path, std::ios::binary);
  if (!in) {
    diagnostics.Error(step.where, what + " '" + *path + "' cannot be read");
    return std::nullopt;
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace clusterctl
