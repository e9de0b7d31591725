#include "controller/validate/check_result.h"

#include <algorithm>
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
  // Read from the end: a node's output may be 16 MiB of line breaks, and
  // splitting all of it made 16 million strings (seconds, and 512 MB). Only
  // the last 256 KiB are read, and a line is kept to its first 2 KiB: 16 MiB
  // without a line break was one 16 MiB evidence line, copied with every
  // result that carried it.
  constexpr size_t kWindow = 256 * 1024, kMaxLine = 2048;
  std::vector<std::string> lines;
  std::string_view text = output;
  if (text.size() > kWindow) text = text.substr(text.size() - kWindow);
  size_t end = text.size();
  while (lines.size() < max_lines) {
    const size_t cut = end == 0 ? std::string_view::npos : text.rfind('\n', end - 1);
    const size_t begin = cut == std::string_view::npos ? 0 : cut + 1;
    const std::string_view line = text.substr(begin, end - begin);
    if (!Trim(line).empty()) lines.emplace_back(line.size() > kMaxLine ? std::string(line.substr(0, kMaxLine)) + "..." : std::string(line));
    if (cut == std::string_view::npos) break;
    end = cut;
  }
  std::reverse(lines.begin(), lines.end());
  return lines;
}

}  // namespace clusterctl
