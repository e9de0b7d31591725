#include "controller/daemon/drift.h"

namespace clusterctl {

void DriftBook::Record(const std::vector<HostReport>& reports, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const HostReport& report : reports) {
    HostDrift drift;
    drift.checked_at_ms = now_ms;
    drift.reached = report.outcome == HostOutcome::kOk;
    drift.error = report.error;
    for (const StepReport& step : report.steps) {
      if (step.status == StepStatus::kWouldChange) drift.steps.emplace_back(step.identity, step.differences);
    }
    hosts_[report.host] = std::move(drift);
  }
  last_check_ms_ = now_ms;
  ++checks_;
}

void DriftBook::Clear(const std::string& host, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostDrift& drift = hosts_[host];
  drift.steps.clear();
  drift.reached = true;
  drift.error.clear();
  drift.checked_at_ms = now_ms;
}

std::map<std::string, HostDrift> DriftBook::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hosts_;
}

std::vector<std::string> DriftBook::Drifted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [host, drift] : hosts_) {
    if (drift.drifted()) names.push_back(host);
  }
  return names;
}

int64_t DriftBook::last_check_ms() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_check_ms_;
}

int64_t DriftBook::checks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return checks_;
}

nlohmann::json DriftBook::ToJson(const HostDrift& drift) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& [step, why] : drift.steps) steps.push_back({{"step", step}, {"why", why}});
  return {{"checked_at", drift.checked_at_ms}, {"reached", drift.reached}, {"error", drift.error},
          {"drifted", drift.drifted()}, {"steps", steps}};
}

}  // namespace clusterctl
