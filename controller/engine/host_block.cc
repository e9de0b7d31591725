#include "controller/engine/host_block.h"

#include "common/strings.h"

namespace clusterctl {
namespace {

constexpr size_t kOutputLines = 20;

std::string Tail(const std::string& text, size_t lines) {
  std::vector<std::string> all = Split(text, '\n');
  while (!all.empty() && all.back().empty()) all.pop_back();
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "      | " + all[i] + "\n";
  return out;
}

// The first failed step follows the host's name; further ones (handlers)
// are indented under it.
std::string FailedSteps(const HostReport& report) {
  std::string out;
  for (const StepReport& s : report.steps) {
    if (s.status != "failed") continue;
    out += (out.empty() ? report.host + " FAILED " : "  also FAILED ") + s.identity + ": " + s.error + "\n";
    if (!s.command.empty()) out += "    command: " + s.command + "\n";
    out += Tail(s.output, kOutputLines);
  }
  return out;
}

std::string OutcomeLine(const HostReport& report) {
  return report.host + ": " + report.outcome + " (changed=" + std::to_string(report.changed) +
         ", failed=" + std::to_string(report.failed) +
         (report.contacted ? "" : ", not contacted: nothing to do") + ")\n";
}

std::string ChangedSteps(const HostReport& report) {
  std::string out;
  for (const StepReport& s : report.steps) {
    if (s.status == "changed") out += "  changed " + s.identity + " (" + Join(s.differences, "; ") + ")\n";
  }
  return out;
}

}  // namespace

bool FailedOrUnreachable(const HostReport& report) {
  return report.outcome == "failed" || report.outcome == "unreachable";
}

std::string HostBlock(const HostReport& report, HostBlockStyle style) {
  if (report.outcome == "unreachable") return report.host + " UNREACHABLE: " + report.error + "\n";
  if (report.outcome == "failed") {
    const std::string steps = FailedSteps(report);
    return steps.empty() ? report.host + " FAILED: " + report.error + "\n" : steps;
  }
  if (!style.plain || style.check) return "";
  return OutcomeLine(report) + ChangedSteps(report);
}

}  // namespace clusterctl
