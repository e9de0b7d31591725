#include "controller/validate/peer_judgement.h"

#include <algorithm>
#include <map>

namespace clusterctl {

const char* const kAcceptanceVariables = R"yaml(
validate_peer_group:
  default: ""
  type: string
  description: "acceptance: a node's measurements are compared with the nodes of the same value (the median of the group); empty, with every node measured"
validate_acceptance_seconds:
  default: 30
  type: integer
  minimum: 1
  maximum: 86400
  description: "acceptance: how long each measurement runs (iperf3, fio), in seconds; validate --duration sets it for one run"
)yaml";

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

CheckResult JudgeOne(const PeerRule& rule, const PeerReading& r, double median, size_t peers) {
  const std::string measured = FormatNumber(r.value) + " " + rule.unit;
  const std::string percent = FormatNumber(r.outlier_percent) + "%";
  const double lowest = median * (1 - r.outlier_percent / 100);
  std::string threshold = r.floor ? ">= " + FormatNumber(*r.floor) + " " + rule.unit : "";
  if (peers > 1) {
    threshold += (threshold.empty() ? "" : ", ") + std::string(">= median - ") + percent;
  }
  if (r.floor && r.value < *r.floor) {
    return Fail(rule.check, rule.scope, r.subject,
                measured + " < floor " + FormatNumber(*r.floor) + " " + rule.unit, {}, measured, threshold);
  }
  const std::string of = " of " + std::to_string(peers) + " nodes";
  if (peers > 1 && r.value < lowest) {
    return Fail(rule.check, rule.scope, r.subject,
                measured + " < median " + FormatNumber(median) + " " + rule.unit + " - " + percent + of, {}, measured,
                threshold);
  }
  if (peers <= 1) {
    return Pass(rule.check, rule.scope, r.subject, measured, threshold,
                r.floor ? "above the floor; no peers to compare with" : "measured; no floor and no peers to compare with");
  }
  return Pass(rule.check, rule.scope, r.subject, measured, threshold,
              "within " + percent + " of the median " + FormatNumber(median) + " " + rule.unit + of);
}

}  // namespace

std::vector<CheckResult> JudgeAgainstPeers(const PeerRule& rule, const std::vector<PeerReading>& readings) {
  std::map<std::string, std::vector<double>> groups;
  for (const PeerReading& r : readings) groups[r.group].push_back(r.value);
  std::vector<CheckResult> results;
  for (const PeerReading& r : readings) {
    const std::vector<double>& peers = groups[r.group];
    results.push_back(JudgeOne(rule, r, Median(peers), peers.size()));
  }
  return results;
}

}  // namespace clusterctl
