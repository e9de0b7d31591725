// Test helper: the built-in roles (roles/, templates/) planned for one host
// of an inventory with fake facts, reduced to what tests assert: the roles,
// the steps that run, their parameters, the files' bodies, the handlers.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/resources/schema.h"
#include "controller/catalog/variable_check.h"
#include "controller/engine/planner.h"
#include "controller/state/secret_vault.h"
#include "controller/state/test_util.h"
#include "inventory/loader.h"
#include "tests/unit/test_paths.h"

namespace clusterctl::testing {

struct Planned {
  std::map<std::string, std::string> files;  // path -> body
  std::vector<std::string> roles;
  std::vector<std::string> handlers;             // identities
  std::vector<std::string> steps;                // identities of the steps that run
  std::map<std::string, std::string> kinds;      // identity -> resource kind (steps that run)
  std::map<std::string, nlohmann::json> params;  // identity -> parameters (steps and handlers)
  std::map<std::string, std::vector<std::string>> notify;  // identity -> the handlers it notifies
  std::map<std::string, std::string> hashes;     // identity -> input hash (steps that run): a deploy
                                                 // checks again exactly the steps whose hash moved
};

// The facts of a Debian 12 node with apt, systemd, one kernel, no HCA and
// no loaded NVIDIA driver (the GPU roles' tests).
inline nlohmann::json DebianNodeFacts(int gpus, int nvswitches = 0) {
  return {{"os", {{"id", "debian"}, {"family", "debian"}, {"version_id", "12"}, {"version_codename", "bookworm"}}},
          {"nvidia_driver", nullptr},
          {"package_manager", "apt"},
          {"kernels", {{"installed", {"6.1.0-28-amd64"}}, {"newest", "6.1.0-28-amd64"}}},
          {"pci", {{"gpu_count", gpus}, {"hca_count", 0}, {"nvswitch_count", nvswitches}}},
          {"systemd", true}};
}

class RoleHarness {
 public:
  RoleHarness(const std::string& inventory, std::vector<std::string> roles) : roles_(std::move(roles)) {
    UseInventory(inventory);
    Diagnostics diagnostics;
    Catalog::Sources sources{{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}};
    sources.platforms_file = testing::SourceDir() + "/platforms.yaml";  // the OS releases' values, as a deploy reads them
    catalog_ = Catalog::Load(sources, diagnostics);
    REQUIRE_MESSAGE(catalog_, diagnostics.ToString());
  }

  std::string dir() const { return dir_.path(); }

  // Plans from now on read `inventory` (the catalog and secrets stay): the
  // same cluster before and after an inventory edit.
  void UseInventory(const std::string& inventory) {
    std::ofstream(dir_.path() + "/inventory.yaml") << inventory;
    Diagnostics diagnostics;
    inventory_ = LoadInventory(dir_.path() + "/inventory.yaml", diagnostics);
    REQUIRE_MESSAGE(inventory_, diagnostics.ToString());
  }

  // Plans from now on get the secrets every role of the harness declares,
  // generated in memory (a plan's vault), so secret_content steps render.
  const SecretVault& UseSecrets() {
    std::vector<const Role*> roles;
    for (const std::string& name : roles_) roles.push_back(catalog_->Find(name));
    vault_.emplace(dir_.path() + "/secrets", /*persist=*/false);
    Status prepared = vault_->Prepare(Catalog::SecretsOf(roles));
    REQUIRE_MESSAGE(prepared.ok(), prepared.message());
    return *vault_;
  }

  Planned Plan(const std::string& host, const nlohmann::json& facts) {
    std::map<std::string, nlohmann::json> all = {{host, facts}};
    return Plan(host, all);
  }

  // The planner's errors for `host` ("" when it plans).
  std::string PlanErrors(const std::string& host, const nlohmann::json& facts) {
    std::map<std::string, nlohmann::json> all = {{host, facts}};
    Planner planner(PlanInputs{&*inventory_, &*catalog_, &all, nullptr, roles_});
    Diagnostics diagnostics;
    planner.Plan(*inventory_->FindHost(host), diagnostics);
    return diagnostics.error_count() == 0 ? "" : diagnostics.ToString();
  }

  // With every host's facts (cluster-wide views and loops read them all).
  Planned Plan(const std::string& host, const std::map<std::string, nlohmann::json>& all) {
    Planner planner(PlanInputs{&*inventory_, &*catalog_, &all, vault_ ? &*vault_ : nullptr, roles_});
    Diagnostics diagnostics;
    HostPlan plan = planner.Plan(*inventory_->FindHost(host), diagnostics);
    REQUIRE_MESSAGE(diagnostics.error_count() == 0, diagnostics.ToString());
    Planned out;
    for (const Role* r : plan.roles) out.roles.push_back(r->name);
    for (const PlannedStep& s : plan.steps) {
      if (s.skipped) continue;
      // A step whose body is its path's content (the file kind: content or template).
      if (resources::ParamWithUse(s.kind, "content", resources::ParamUse::kPathContent)) {
        out.files[s.params["path"].get<std::string>()] = s.body;
      }
      out.steps.push_back(s.Identity());
      out.kinds[s.Identity()] = s.kind;
      out.params[s.Identity()] = s.params;
      out.notify[s.Identity()] = s.step->notify;
      out.hashes[s.Identity()] = s.input_hash;
    }
    for (const PlannedStep& s : plan.handlers) {
      if (s.skipped) continue;
      out.handlers.push_back(s.Identity());
      out.params[s.Identity()] = s.params;
    }
    return out;
  }

 private:
  std::vector<std::string> roles_;
  testing::TempDir dir_;
  std::optional<Inventory> inventory_;
  std::optional<Catalog> catalog_;
  std::optional<SecretVault> vault_;
};

// Every built-in role but slurm-health, whose step copies the build's own
// clusterctl-health (beside the clusterctl that runs, not the unit tests):
// what a plan of the whole stack can render here, sorted.
inline std::vector<std::string> BuiltInRolesButHealth() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() + "/roles")) {
    const std::string name = entry.path().stem().string();
    if (entry.path().extension() == ".yaml" && name != "slurm-health") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// What `inventory check` says of inventory `text` with the built-in roles:
// the loader's diagnostics and then every role variable's (the text must load).
inline std::string InventoryVariableProblems(const std::string& text) {
  TempDir dir;
  std::ofstream(dir.path() + "/inventory.yaml") << text;
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(dir.path() + "/inventory.yaml", diagnostics);
  REQUIRE(inventory);
  std::optional<Catalog> catalog =
      Catalog::Load({{SourceDir() + "/roles"}, {SourceDir() + "/templates"}}, diagnostics);
  REQUIRE(catalog);
  CheckInventoryVariables(*catalog, *inventory, diagnostics);
  return diagnostics.ToString();
}

}  // namespace clusterctl::testing
