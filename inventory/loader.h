// Loading an inventory file: YAML -> validated, resolved Inventory.
//
// Contract: either every problem in the file is reported (file:line:column,
// what is wrong, a "did you mean" for typos) and nullopt is returned, or the
// returned Inventory satisfies the invariants in model.h. Nothing outside the
// process is touched except reading the file and checking that key files exist.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "common/yaml_doc.h"
#include "inventory/model.h"

namespace clusterctl {

// How large an inventory may grow once its ranges, groups and variables are
// expanded. Each bound is checked before the work it bounds, so a hostile or
// mistyped file is refused in bounded time and memory (docs/inventory.md).
struct InventorySizeLimits {
  size_t max_hosts = 100'000;              // hosts, summed over every host pattern
  size_t max_group_memberships = 1'000'000;  // (group, host) pairs, listed or inherited
  size_t max_variable_bytes = 256u << 20;  // every host's resolved variables, added up
};

struct InventoryLoadOptions {
  YamlLimits limits;
  InventorySizeLimits size;
  // Expands a leading "~/" in key file paths; defaults to $HOME.
  std::string home_dir;
  // Whether a path names a readable regular file; replaced in unit tests.
  std::function<bool(const std::string&)> file_exists;
  // When set and loading fails: what was read, for checks that report in
  // the same pass (variables against the roles). It holds the cluster's and
  // the groups' variables with their locations, and hosts with at least
  // their own variables (resolved where resolution ran); none of model.h's
  // invariants. Left untouched when loading succeeds.
  Inventory* partial = nullptr;
};

std::optional<Inventory> LoadInventory(const std::string& path, Diagnostics& diagnostics,
                                       InventoryLoadOptions options = {});

// `base_dir` is where relative key file paths resolve.
std::optional<Inventory> ParseInventory(std::string_view text, const std::string& file_name,
                                        const std::string& base_dir, Diagnostics& diagnostics,
                                        InventoryLoadOptions options = {});

}  // namespace clusterctl
