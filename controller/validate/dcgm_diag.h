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
#include "controller/validate/check_result.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {

struct DcgmTest {
  std::string section;  // "Deployment", "Hardware", ...
  std::string name;     // "Persistence Mode"
  std::string result;   // "Pass", "Fail", "Skip", "Warn"
  std::string result_text;         // as printed: "Fail - All"
  std::vector<std::string> lines;  // the row and its Info/Warning/Error rows, as printed
};

Result<std::vector<DcgmTest>> ParseDcgmDiag(std::string_view text);

// The same results from `dcgmi diag -r N -j` (its JSON), one DcgmTest per
// test: DCGM 3.x's {"DCGM GPU Diagnostic": {"test_categories": [{"category",
// "tests": [{"name", "results": [{"gpu_id", "status", "warnings":
// [{"warning"}], "info"}]}]}]}} and DCGM 4.x's {"DCGM Diagnostic": ...} whose
// results name "entity_id" and whose tests add a "test_summary" {"status"}.
// A test's result is its worst: Fail, else Warn, else Pass, else Skip
// (statuses read in any case: nvvs writes "PASS", dcgmi "Pass"); its
// result_text names the GPUs of a Fail or Warn ("Fail - GPU: 0, 3"); its
// lines are the warnings and info, each prefixed with its GPU, then those of
// the test_summary that no GPU's result already gave (DCGM 4.5 repeats the
// GPUs' there; an info of no GPU is only there). Null entries
// in the arrays (nvvs writes them) and text before the first '{' (a
// warning dcgmi printed first) are passed over. An error for no JSON, for
// neither root, for the diagnostic's own "runtime_error", and for no test.
Result<std::vector<DcgmTest>> ParseDcgmDiagJson(std::string_view text);

// The judgement of a dcgmi diag run (gpu.dcgm's table, gpu.dcgm_diag's
// JSON; `command` as the evidence names it): every test Pass or Skip, at
// least one Pass, exit 0; where the run has tests beyond Deployment (level 2
// and up), not all of those Skip: DCGM skips its plugins without a word on a
// GPU that is not on its list for them (a GB10 at 4.5.2). A parse error fails with the tool's output as
// evidence. (gpu_verdicts.cc.)
CheckResult JudgeDcgmTests(const std::string& check, const std::string& command, const std::string& host,
                           const ToolOutput& diag, const Result<std::vector<DcgmTest>>& tests);

}  // namespace clusterctl
