#include "controller/daemon/power_remediation.h"

#include <algorithm>

namespace clusterctl {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;

// The node of one of `host`'s groups that is being power-cycled (cycled
// within `settle` and still down, or chosen now), "" when none.
std::string GroupBusy(const Host& host, const std::vector<PastPowerCycle>& holding, const Inventory& inventory,
                      std::string& group_name) {
  for (const PastPowerCycle& cycle : holding) {
    if (cycle.host == host.name) continue;
    const Host* other = inventory.FindHost(cycle.host);
    if (!other) continue;
    for (const std::string& group : host.groups) {
      if (std::binary_search(other->groups.begin(), other->groups.end(), group)) {
        group_name = group;
        return cycle.host;
      }
    }
  }
  return "";
}

// Why `node` is not power-cycled whatever the budget says, "" when it may be.
std::string NotHung(const DownNode& node) {
  if (!node.host->bmc) return "no BMC is configured for it (inventory: bmc)";
  if (node.answers_ssh) return "it answers over SSH: down in Slurm for another reason (slurmd, munge, its network)";
  if (!node.bmc) return "its BMC gives no power state: " + node.bmc_error;
  if (*node.bmc == PowerState::kOff) return "its BMC reads off: powered off, not hung";
  return "";
}

// Why the policy holds `host` back now, "" when it does not: its own
// recent cycle, the hour's budget, a node of its group being cycled.
std::string HeldBack(const Host& host, const std::vector<PastPowerCycle>& hour,
                     const std::vector<PastPowerCycle>& holding, const PowerRemediationPolicy& policy,
                     const Inventory& inventory, int64_t settle_ms, int64_t now_ms) {
  for (const PastPowerCycle& c : hour) {
    if (c.host == host.name && c.at_ms > now_ms - settle_ms) {
      return "power-cycled " + std::to_string((now_ms - c.at_ms) / 1000) + " s ago: given " +
             std::to_string(policy.settle.count()) + " s to come back";
    }
  }
  if (static_cast<int>(hour.size()) >= policy.max_per_hour) {
    return std::to_string(hour.size()) + " power cycle(s) in the last hour already (at most " +
           std::to_string(policy.max_per_hour) + ")";
  }
  std::string group;
  if (std::string busy = GroupBusy(host, holding, inventory, group); !busy.empty()) {
    return busy + " of its group " + group + " is being power-cycled";
  }
  return "";
}

}  // namespace

std::vector<PastPowerCycle> WithinTheHour(std::vector<PastPowerCycle> past, int64_t now_ms) {
  past.erase(std::remove_if(past.begin(), past.end(), [&](const PastPowerCycle& c) { return c.at_ms <= now_ms - kHourMs; }),
             past.end());
  return past;
}

std::vector<PowerDecision> DecidePowerCycles(const PowerRemediationPolicy& policy, const std::vector<DownNode>& down,
                                             const std::vector<PastPowerCycle>& past,
                                             const std::set<std::string>& down_in_slurm,
                                             const Inventory& inventory, int64_t now_ms) {
  std::vector<PowerDecision> decisions;
  if (!policy.enabled) return decisions;
  const int64_t settle_ms = std::chrono::duration_cast<std::chrono::milliseconds>(policy.settle).count();
  std::vector<PastPowerCycle> hour = WithinTheHour(past, now_ms);
  std::vector<PastPowerCycle> holding;  // cycled within settle and still down: their groups are busy
  for (const PastPowerCycle& c : hour) {
    if (c.at_ms > now_ms - settle_ms && down_in_slurm.count(c.host)) holding.push_back(c);
  }
  for (const DownNode& node : down) {
    std::string why = NotHung(node);
    if (why.empty()) why = HeldBack(*node.host, hour, holding, policy, inventory, settle_ms, now_ms);
    PowerDecision d{node.host, why.empty(), why};
    if (d.cycle) {
      d.why = "down in Slurm, no answer over SSH, its BMC reads on";
      hour.push_back({node.host->name, now_ms});
      holding.push_back({node.host->name, now_ms});
    }
    decisions.push_back(std::move(d));
  }
  return decisions;
}

}  // namespace clusterctl
