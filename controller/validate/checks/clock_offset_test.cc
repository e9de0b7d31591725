// clock.offset judged as the node judges it (spec_test_util.h): chronyc
// tracking in sync, far off, unsynchronised, failing and stopped, and the
// limit from validate_clock_offset_max_ms.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

const char* kTracking =
    "Reference ID    : 0AD54D0B (10.213.77.11)\nStratum         : 11\n"
    "System time     : 0.000005916 seconds slow of NTP time\nLeap status     : Normal\n";

// `from` replaced by `to` in the tracking above.
std::string Tracking(const std::string& from = "", const std::string& to = "") {
  std::string text = kTracking;
  if (!from.empty()) text.replace(text.find(from), from.size(), to);
  return text;
}

TEST_CASE("clock.offset: in sync passes; offset above the limit, unsynchronised and a stopped chronyd fail") {
  testing::SpecBench bench;
  bench.Reads("chronyc tracking", Tracking());
  CheckResult pass = bench.Judge("clock.offset");
  CHECK(pass.outcome == CheckOutcome::kPass);
  CHECK(pass.threshold == "<= 100 ms");
  bench.Reads("chronyc tracking", Tracking("0.000005916", "0.250000000"));
  CheckResult far = bench.Judge("clock.offset");
  CHECK(far.outcome == CheckOutcome::kFail);
  CHECK(far.measured == "250 ms");
  CHECK(far.detail == "clock offset 250 ms above 100 ms");
  bench.Reads("chronyc tracking", Tracking("Normal", "Not synchronised"));
  CHECK(bench.Judge("clock.offset").detail.find("not synchronised") != std::string::npos);
  bench.Reads("chronyc tracking", "506 Cannot talk to daemon\n", 1);
  CheckResult stopped = bench.Judge("clock.offset");
  CHECK(stopped.outcome == CheckOutcome::kFail);
  CHECK(stopped.detail == "chronyd is not running (chronyc cannot talk to it)");
}

TEST_CASE("clock.offset: chronyc's results count only when it exited 0") {
  testing::SpecBench bench;
  bench.Reads("chronyc tracking", Tracking());
  REQUIRE(bench.Judge("clock.offset").outcome == CheckOutcome::kPass);
  bench.Reads("chronyc tracking", Tracking(), 1);
  CHECK(bench.Judge("clock.offset").outcome == CheckOutcome::kFail);
}

TEST_CASE("clock.offset takes its limit from validate_clock_offset_max_ms, declared by the check") {
  const CheckSpec* spec = FindCheckSpec("clock.offset");
  REQUIRE(spec != nullptr);
  CHECK(spec->variables.find("validate_clock_offset_max_ms:") != std::string::npos);
  testing::SpecBench bench;
  bench.Reads("chronyc tracking", Tracking("0.000005916", "0.250000000"));
  bench.vars["validate_clock_offset_max_ms"] = 300;
  CheckResult r = bench.Judge("clock.offset");
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.threshold == "<= 300 ms");
  bench.vars["validate_clock_offset_max_ms"] = 0.5;
  CHECK(bench.Judge("clock.offset").detail == "clock offset 250 ms above 0.5 ms");
}

}  // namespace
}  // namespace clusterctl
