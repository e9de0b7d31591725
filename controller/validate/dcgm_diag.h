// Parser for `dcgmi diag -r N` (DCGM's diagnostic) in its table form:
//   | Diagnostic                | Result                  |
//   |-----  Deployment  --------+-------------------------|
//   | Persistence Mode          | Fail                    |
//   | Warning                   | GPU 0 Persistence mode  |
//   |                           |  for GPU 0 is disabled  |
// DCGM 2 to 4 print results as "Pass", "Fail", "Skip", "Warn", optionally
// followed by " - All" or " - GPU: 0, 1". Pure function; an error for text
// that has no such table (e.g. "Error: unable to connect to host engine").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

struct DcgmTest {
  std::string section;  // "Deployment", "Hardware", ...
  std::string name;     // "Persistence Mode"
  std::string result;   // "Pass", "Fail", "Skip", "Warn"
  std::string result_text;         // as printed: "Fail - All"
  std::vector<std::string> lines;  // the row and its Info/Warning/Error rows, as printed
};

Result<std::vector<DcgmTest>> ParseDcgmDiag(std::string_view text);

}  // namespace clusterctl
