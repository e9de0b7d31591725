#include "controller/validate/dcgm_diag.h"

#include <regex>

#include "common/strings.h"

namespace clusterctl {

Result<std::vector<DcgmTest>> ParseDcgmDiag(std::string_view text) {
  static const std::regex kSection(R"(^[|+]-+\s+(.*?)\s+-+\+)");
  static const std::regex kRow(R"(^\|([^|]*)\|([^|]*)\|\s*$)");
  static const std::regex kResult(R"(^(Pass|Fail|Skip|Warn)\b)");
  std::vector<DcgmTest> tests;
  std::string section;
  bool header = false;
  DcgmTest* current = nullptr;  // the test that Info/Warning/continuation rows belong to
  std::smatch m;
  for (std::string line : Split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, m, kSection)) {
      section = m[1];
      current = nullptr;
      continue;
    }
    if (!std::regex_match(line, m, kRow)) continue;
    std::string name(Trim(m[1].str()));
    std::string value(Trim(m[2].str()));
    if (name == "Diagnostic" && value == "Result") {
      header = true;
      continue;
    }
    if (!header || section == "Metadata") continue;
    std::smatch result;
    if (!name.empty() && name != "Info" && name != "Warning" && name != "Error" &&
        std::regex_search(value, result, kResult)) {
      tests.push_back({section, name, result[1], value, {line}});
      current = &tests.back();
    } else if (current != nullptr) {
      current->lines.push_back(line);
    }
  }
  if (!header) {
    std::string first;
    for (const std::string& line : Split(text, '\n')) {
      if (!Trim(line).empty()) {
        first = std::string(Trim(line));
        break;
      }
    }
    return Status::InvalidArgument("not dcgmi diag output: " + (first.empty() ? "(empty output)" : Printable(first, 200)));
  }
  if (tests.empty()) return Status::InvalidArgument("dcgmi diag printed its table but no test result");
  return tests;
}

}  // namespace clusterctl
