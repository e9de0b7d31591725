// One result of one validation check (docs/validation.md): what was checked,
// on what, the outcome, what was measured against which threshold, and on
// failure the tool output lines that show it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/check_outcome.h"

namespace clusterctl {

// The words of the report (docs/validation.md's JSON, the tables).
const char* ToString(CheckScope scope);
const char* ToString(CheckOutcome outcome);

struct CheckResult {
  std::string check;    // "gpu.ecc"
  CheckScope scope = CheckScope::kNode;
  std::string subject;  // host name, "nodeA+nodeB" for a pair, the cluster name for the cluster
  CheckOutcome outcome = CheckOutcome::kPass;
  std::string measured;   // "0.4 ms", "2 GPUs"
  std::string threshold;  // "<= 100 ms", "== 2 (PCI)"
  std::string detail;     // one line: why it failed or was skipped, or what passed
  std::vector<std::string> evidence;  // relevant tool output lines (failures)

  nlohmann::json ToJson() const;
};

CheckResult Pass(std::string check, CheckScope scope, std::string subject, std::string measured = "",
                 std::string threshold = "", std::string detail = "");
CheckResult Fail(std::string check, CheckScope scope, std::string subject, std::string detail,
                 std::vector<std::string> evidence = {}, std::string measured = "", std::string threshold = "");
// A skip always says why ("no InfiniBand ports on node03").
CheckResult Skip(std::string check, CheckScope scope, std::string subject, std::string reason);

// 11000 -> "11000", 0.25 -> "0.25", 12.3456 -> "12.35": at most two decimals, no trailing zeros.
std::string FormatNumber(double value);

// The last `max_lines` non-empty lines of `output` (evidence for a tool that
// failed), read from its last 256 KiB, each line kept to its first 2 KiB.
std::vector<std::string> TailLines(const std::string& output, size_t max_lines = 12);

}  // namespace clusterctl
