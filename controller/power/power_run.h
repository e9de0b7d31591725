// The power engine: one power action on each selected host's BMC through
// ipmitool on the controller, hosts in parallel, each host's result its
// own (one BMC that refuses or does not answer fails that host alone).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/power/ipmitool.h"
#include "controller/power/local_process.h"
#include "inventory/model.h"

namespace clusterctl {

struct PowerResult {
  const Host* host = nullptr;
  bool ok = false;
  std::string message;              // what happened, or why it failed
  std::optional<PowerState> state;  // kStatus
  std::vector<SelEntry> sel;        // kSel
};

// How long one ipmitool may run before it is killed: its own retries
// (ipmitool.h) and a margin.
inline constexpr std::chrono::seconds kIpmitoolDeadline{(kIpmiRetries + 1) * kIpmiAnswerTimeoutS + 10};

// Why the password file may not be used, "" when it may: it must be a
// regular file that neither its group nor others may read (ipmitool would
// read any; the check keeps a site's BMC password from lying open).
std::string PasswordFileProblem(const std::string& path);

// Runs `action` on every host (at most `forks` at once); results in the
// hosts' order. A host without a bmc fails with that said.
std::vector<PowerResult> RunPower(const std::vector<const Host*>& hosts, PowerAction action, ProcessRunner& runner,
                                  size_t forks);

// "Power cycle this host", the one way the engine does it (a reboot whose
// node did not come back, kinds/reboot_kind.cc): the BMC is asked for the
// power state, then for a cycle when it is on, for a power on when it is
// off (IPMI lets a BMC ignore a cycle of a chassis that is off). One
// result; its message says both ("power was on: power cycle requested").
// Blocks for up to two ipmitool deadlines.
PowerResult PowerCycleHost(const Host& host, ProcessRunner& runner);

// One host's result as one line: "node03: on", "node03: failed: ...";
// a SEL's entries follow on lines of their own.
std::string PowerResultText(const PowerResult& result);
// {"action": ..., "hosts": {NAME: {"ok", "message", "state"?, "sel"?}}}
nlohmann::json PowerResultsJson(PowerAction action, const std::vector<PowerResult>& results);

}  // namespace clusterctl
