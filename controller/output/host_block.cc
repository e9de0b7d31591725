#include "controller/output/host_block.h"

#include "common/strings.h"
#include "controller/output/status_colour.h"

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
std::string FailedSteps(const HostReport& report, bool colour) {
  const std::string failed = ColourStatus("FAILED", colour);
  std::string out;
  for (const StepReport& s : report.steps) {
    if (s.status != StepStatus::kFailed) continue;
    out += (out.empty() ? report.host + " " + failed + " " : "  also " + failed + " ") + s.identity + ": " + s.error + "\n";
    if (!s.command.empty()) out += "    command: " + s.command + "\n";
    out += Tail(s.output, kOutputLines);
  }
  return out;
}

std::string OutcomeLine(const HostReport& report, bool colour) {
  return report.host + ": " + ColourStatus(ToString(report.outcome), colour) + " (changed=" + std::to_string(report.changed) +
         ", failed=" + std::to_string(report.failed) +
         (report.contacted ? "" : ", not contacted: nothing to do") + ")\n";
}

std::string ChangedSteps(const HostReport& report, bool colour) {
  std::string out;
  for (const StepReport& s : report.steps) {
    if (s.status == StepStatus::kChanged) out += "  " + ColourStatus("changed", colour) + " " + s.identity + " (" + Join(s.differences, "; ") + ")\n";
  }
  return out;
}

}  // namespace

bool FailedOrUnreachable(const HostReport& report) {
  return report.outcome == HostOutcome::kFailed || report.outcome == HostOutcome::kUnreachable;
}

std::string HostBlock(const HostReport& report, HostBlockStyle style) {
  if (report.outcome == HostOutcome::kUnreachable) {
    return report.host + " " + ColourStatus("UNREACHABLE", style.colour) + ": " + report.error + "\n";
  }
  if (report.outcome == HostOutcome::kFailed) {
    const std::string steps = FailedSteps(report, style.colour);
    return steps.empty() ? report.host + " " + ColourStatus("FAILED", style.colour) + ": " + report.error + "\n" : steps;
  }
  if (!style.plain || style.check) return "";
  return OutcomeLine(report, style.colour) + ChangedSteps(report, style.colour);
}

}  // namespace clusterctl
