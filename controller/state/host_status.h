// What the state says about each host of the inventory (and each host the
// state knows that left it): for `clusterctl status` and the daemon.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/state/state_store.h"
#include "inventory/model.h"

namespace clusterctl {

// A host as `status` and the daemon show it: its record's status, its
// reachability and whether it is still in the inventory, in one.
enum class HostState { kNeverDeployed, kOk, kFailed, kUnreachable, kGoneFromInventory, kRemoved };
// "never deployed" | "ok" | "failed" | "unreachable" | "gone from inventory" | "removed"
const char* ToString(HostState state);

struct HostStatusRow {
  std::string name;
  std::string address;
  std::vector<std::string> groups;
  HostState state = HostState::kNeverDeployed;
  std::optional<int64_t> since;
  std::string detail;
  std::string validation;  // "pass (run 7)", "fail: slurm.node, gpu.ecc (run 7)", "" when never validated
};

// One node's latest validation in a few words: "pass (run 7)" or
// "fail: clock.offset, slurm.node (run 7)".
std::string SummarizeValidation(const std::vector<StoredValidation>& results);

// Pure: joins the inventory with the state's host records.
std::vector<HostStatusRow> BuildStatusRows(const Inventory& inventory, const std::vector<HostRecord>& records);

}  // namespace clusterctl
