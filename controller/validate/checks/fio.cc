#include "controller/validate/checks/fio.h"

#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

constexpr double kMB = 1e6;

}  // namespace

const ProbeSpec& FioInstalledProbe() {
  static const ProbeSpec probe{.id = "fio installed", .commands = {{"test", "-x", "/usr/bin/fio"}}, .timeout_s = 10};
  return probe;
}

Argv FioArgv(const std::string& filename, const std::string& rw, long long size_mib, long long block_mib, int seconds,
             const Argv& extra) {
  Argv argv = {"/usr/bin/fio", "--name=clusterctl-accept", "--filename=" + filename, "--rw=" + rw, "--bs=" + std::to_string(block_mib) + "M",
               "--size=" + std::to_string(size_mib) + "M", "--runtime=" + std::to_string(seconds), "--time_based"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--output-format=json");
  return argv;
}

Result<double> FioBytesPerSecond(const std::string& text, const std::string& rw) {
  const size_t start = text.find('{');
  const nlohmann::json doc = start == std::string::npos ? nlohmann::json()
                                                       : nlohmann::json::parse(text.substr(start), nullptr, false);
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty()) {
    return Status::InvalidArgument("fio printed no JSON report");
  }
  const nlohmann::json& job = doc["jobs"][0];
  if (job.contains("error") && job["error"].is_number() && job["error"].get<long long>() != 0) {
    return Status::InvalidArgument("fio's job failed with error " + std::to_string(job["error"].get<long long>()));
  }
  if (!job.contains(rw) || !job[rw].contains("bw_bytes") || !job[rw]["bw_bytes"].is_number()) {
    return Status::InvalidArgument("fio's report has no " + rw + ".bw_bytes");
  }
  return job[rw]["bw_bytes"].get<double>();
}

void FioReadings::Add(const NodeView& view, const std::string& part, const std::string& rw, const Result<ToolOutput>& output,
                      const char* floor_variable, const char* percent_variable) {
  const Result<double> bps = output.ok() ? FioBytesPerSecond(output->out, rw) : Result<double>(output.status());
  if (!bps.ok()) {
    std::vector<std::string> evidence = output.ok() ? TailLines(output->Both()) : std::vector<std::string>{};
    failed_.push_back({view.host(), part, Fail(check_, kNode, view.host(), bps.status().message(), std::move(evidence), "unknown")});
    return;
  }
  readings_.push_back(ReadingOf(view, part, *bps / kMB, floor_variable, percent_variable));
  keys_.emplace_back(view.host(), part);
}

void FioReadings::NotMeasured(const std::string& node, const std::string& part, const std::string& why) {
  failed_.push_back({node, part, Fail(check_, kNode, node, why, {}, "unknown")});
}

std::vector<CheckResult> FioReadings::Results() const {
  std::vector<PartResult> parts = failed_;
  std::vector<CheckResult> judged = JudgeAgainstPeers({check_, kNode, "MB/s"}, readings_);
  for (size_t k = 0; k < judged.size(); ++k) parts.push_back({keys_[k].first, keys_[k].second, std::move(judged[k])});
  return PerNode(parts);
}

}  // namespace clusterctl::checks
