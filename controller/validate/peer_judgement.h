// The acceptance checks' judgement of one measurement across nodes
// (docs/validation.md, "Acceptance"): a node fails below its floor, and
// below its peer group's median by more than its outlier percent even
// above the floor: a node at a third of its peers' speed ruins the jobs
// that land on it although it "works". Higher readings are better (rates,
// bandwidths, FLOP/s). Pure: the checks measure, this judges.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/validate/check_result.h"

namespace clusterctl {

// The variables every acceptance check reads (validate's variables:
// catalog/check_variables.cc declares them with the checks' own).
inline constexpr const char* kPeerGroupVariable = "validate_peer_group";
inline constexpr const char* kAcceptanceSecondsVariable = "validate_acceptance_seconds";
extern const char* const kAcceptanceVariables;  // their YAML declarations

// One node's reading of one measurement.
struct PeerReading {
  std::string subject;           // the node ("node07"), or the node and what was measured ("node07 ib0")
  std::string group;             // its peers: the readings of the same group ("" is a group too)
  double value = 0;              // in `unit`
  std::optional<double> floor;   // its floor in `unit`; none: only the outlier rule
  double outlier_percent = 20;   // fails below the group's median by more than this (0..100)
};

struct PeerRule {
  std::string check;  // "net.iperf3"
  CheckScope scope = CheckScope::kNode;
  std::string unit;   // "Gb/s"
};

// The median of `values` (the mean of the two middle ones for an even count). REQUIRES: not empty.
double Median(std::vector<double> values);

// A result per reading, in their order: a failure below the floor
// ("31.2 Gb/s < floor 50 Gb/s") or the group's median less the outlier
// percent ("31.2 Gb/s < median 97.1 Gb/s - 20%"), else a pass naming the
// median of how many peers. A group of one node is judged by its floor alone
// (said in the detail).
std::vector<CheckResult> JudgeAgainstPeers(const PeerRule& rule, const std::vector<PeerReading>& readings);

}  // namespace clusterctl
