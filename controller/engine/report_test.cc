// The plain report of a plan: what it says when hosts could not be planned.
#include "controller/engine/report.h"

#include <doctest/doctest.h>

#include <sstream>

namespace clusterctl {
namespace {

// The line starting with `prefix` of the plain report of a run (a plan with
// `check`) whose hosts ended as `reports`.
std::string ReportLine(const std::vector<HostReport>& reports, const std::string& prefix, bool check = true) {
  std::ostringstream out;
  Reporter reporter(Reporter::Mode::kPlain, out, /*show_diff=*/false);
  reporter.OnEvent(RunStartedEvent{0, reports.size(), check, false});
  for (const HostReport& r : reports) reporter.OnEvent(HostFinishedEvent{&r});
  reporter.OnEvent(RecapEvent{&reports, std::chrono::milliseconds(5), check, false});
  const std::string text = out.str();
  const size_t at = text.find(prefix);
  REQUIRE(at != std::string::npos);
  return text.substr(at, text.find('\n', at) - at);
}

std::string PlanLine(const std::vector<HostReport>& reports) { return ReportLine(reports, "Plan: "); }

HostReport Host(const std::string& name, const std::string& outcome, int changed = 0) {
  HostReport r;
  r.host = name;
  r.outcome = outcome;
  r.changed = changed;
  if (outcome == "unreachable") r.error = "connection refused";
  return r;
}

}  // namespace

TEST_CASE("a plan with no host reached says so, never 'nothing to do'") {
  CHECK(PlanLine({Host("node01", "unreachable"), Host("node02", "unreachable"), Host("node03", "failed")}) ==
        "Plan: 0 steps would change on 0 of 3 hosts; 3 hosts could not be planned (node[01-03])");
  CHECK(PlanLine({Host("node01", "ok"), Host("node02", "unreachable")}) ==
        "Plan: 0 steps would change on 0 of 2 hosts; 1 host could not be planned (node02)");
  CHECK(PlanLine({Host("node01", "ok", 2), Host("node02", "unreachable")}) ==
        "Plan: 2 steps would change on 1 of 2 hosts; 1 host could not be planned (node02)");
  CHECK(PlanLine({Host("node01", "ok"), Host("node02", "ok")}) == "Plan: 0 steps would change on 0 of 2 hosts (nothing to do)");
}

TEST_CASE("the recap counts unreachable hosts, which have no steps to count") {
  CHECK(ReportLine({Host("node01", "unreachable"), Host("node02", "unreachable")}, "Recap", /*check=*/false) ==
        "Recap (5ms): ok=0 changed=0 failed=0 skipped=0 unreachable=2");
  CHECK(ReportLine({Host("node01", "ok")}, "Recap", /*check=*/false) == "Recap (5ms): ok=0 changed=0 failed=0 skipped=0");
}

}  // namespace clusterctl
