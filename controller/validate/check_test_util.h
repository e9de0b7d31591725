// Test helpers for the validation checks' verdicts (parsers_test.cc,
// rigor_test.cc): a tool's output as a check receives it, and a look into a
// result's evidence.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "controller/validate/check_result.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/tool_output.h"

namespace clusterctl::testing {

inline ToolOutput Output(const std::string& text, int exit_code = 0, int signal = 0) {
  ToolOutput o;
  o.out = text;
  o.exit_code = exit_code;
  o.signal = signal;
  return o;
}

// gpu.ecc's verdict on an nvidia-smi -q capture (rigor_test.cc, gpu_findings_test.cc).
inline CheckResult EccResult(const std::string& text, const EccPolicy& ecc) {
  auto report = ParseNvidiaSmiQuery(text);
  REQUIRE(report.ok());
  for (const CheckResult& r : EvaluateGpuHealth("n", report, text, report->GpuCount(), ecc)) {
    if (r.check == "gpu.ecc") return r;
  }
  FAIL("no gpu.ecc result");
  return {};
}

inline bool EvidenceHas(const CheckResult& r, const std::string& needle) {
  for (const std::string& line : r.evidence) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace clusterctl::testing
