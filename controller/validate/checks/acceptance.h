// What the acceptance checks (check_spec.h, CheckLevel::kAcceptance) share:
// the nodes they measure, a node's reading for the peer judgement
// (validate/peer_judgement.h) with its own floor and outlier percent, and one
// result per node from the parts it was measured on (a network, a path).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/validate/check_spec.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/peer_judgement.h"

namespace clusterctl::checks {

// The nodes the check can measure (MeasurableNodes, cluster_run.h) that
// have the tool (`installed` probe passed), in --limit's order. One without
// it fails (no reading, no pass): "<tool> is not installed on X (the
// acceptance-tools role installs it: acceptance_tools: true)".
std::vector<std::string> MeasuredNodes(ClusterRun& run, const std::string& check, const ProbeSpec& installed,
                                       const std::string& tool);

// Why `node` has no reading of a check whose `tool` is missing there.
std::string NotInstalled(const std::string& tool, const std::string& node);

// The reading of `host` for the peer judgement: its group from
// validate_peer_group prefixed with `part` (a network's, a path's readings
// are compared only with the same part's), its floor and outlier percent
// from its variables (`floor_variable` may be null or a null variable: no floor).
PeerReading ReadingOf(const NodeView& view, const std::string& part, double value, const char* floor_variable,
                      const char* percent_variable);

// The measurement time every acceptance check runs for (validate_acceptance_seconds; --duration).
int MeasureSeconds(const NodeView& view);

// One part's result on a node: "mgmt" and the judgement (or a failure to measure).
struct PartResult {
  std::string node;
  std::string part;
  CheckResult result;
};

// One result per node, in the order nodes first appear: failed when any
// part failed (the detail names each failed part: "ib0: 3.1 Gb/s < median
// 9.4 Gb/s - 20% ..."), else passed; measured lists every part's reading.
std::vector<CheckResult> PerNode(const std::vector<PartResult>& parts);

}  // namespace clusterctl::checks
