#include "controller/validate/check_result.h"

#include <cstdio>

#include "common/strings.h"

namespace clusterctl {

const char* ToString(CheckScope scope) {
  switch (scope) {
    case CheckScope::kCluster: return "cluster";
    case CheckScope::kNode: return "node";
    case CheckScope::kPair: return "pair";
  }
  return "?";
}

const char* ToString(CheckOutcome outcome) {
  switch (outcome) {
    case CheckOutcome::kPass: return "pass";
    case CheckOutcome::kFail: return "fail";
    case CheckOutcome::kSkip: return "skip";
  }
  return "?";
}

nlohmann::json CheckResult::ToJson() const {
  return {{"check", check},     {"scope", ToString(scope)}, {"subject", subject},   {"result", ToString(outcome)},
          {"measured", measured}, {"threshold", threshold},  {"detail", detail},     {"evidence", evidence}};
}

CheckResult Pass(std::string check, CheckScope scope, std::string subject, std::string measured, std::string threshold,
                 std::string detail) {
  return {std::move(check), scope, std::move(subject), CheckOutcome::kPass, std::move(measured), std::move(threshold),
          std::move(detail), {}};
}

CheckResult Fail(std::string check, CheckScope scope, std::string subject, std::string detail,
                 std::vector<std::string> evidence, std::string measured, std::string threshold) {
  return {std::move(check), scope, std::move(subject), CheckOutcome::kFail, std::move(measured), std::move(threshold),
          std::move(detail), std::move(evidence)};
}

CheckResult Skip(std::string check, CheckScope scope, std::string subject, std::string reason) {
  return {std::move(check), scope, std::move(subject), CheckOutcome::kSkip, "", "", std::move(reason), {}};
}

std::string FormatNumber(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  std::string text = buffer;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::vector<std::string> TailLines(const std::string& output, size_t max_lines) {
  std::vector<std::string> lines;
  for (const std::string& line : Split(output, '\n')) {
    if (!Trim(line).empty()) lines.push_back(line);
  }
  if (lines.size() > max_lines) lines.erase(lines.begin(), lines.end() - static_cast<long>(max_lines));
  return lines;
}

}  // namespace clusterctl
