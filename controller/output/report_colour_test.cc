// The report's status words in colour: only when asked, never in JSON.
#include <doctest/doctest.h>

#include <sstream>

#include "controller/output/report.h"

namespace clusterctl {
namespace {

std::string Recap(Reporter::Mode mode, bool colour) {
  std::vector<HostReport> reports(2);
  reports[0].host = "node01";
  reports[0].outcome = HostOutcome::kOk;
  reports[1].host = "node02";
  reports[1].outcome = HostOutcome::kUnreachable;
  reports[1].error = "connection refused";
  std::ostringstream out;
  Reporter reporter(mode, out, /*show_diff=*/false);
  reporter.SetColour(colour);
  reporter.OnEvent(RunStartedEvent{0, reports.size(), false, false});
  for (const HostReport& r : reports) reporter.OnEvent(HostFinishedEvent{&r});
  reporter.OnEvent(RecapEvent{&reports, std::chrono::milliseconds(5), false, false});
  return out.str();
}

}  // namespace

TEST_CASE("the report colours ok and unreachable when asked, and never its JSON") {
  const std::string coloured = Recap(Reporter::Mode::kPlain, true);
  CHECK(coloured.find("  \033[32mok\033[0m: node01") != std::string::npos);
  CHECK(coloured.find("node02 \033[35mUNREACHABLE\033[0m: connection refused") != std::string::npos);
  CHECK(Recap(Reporter::Mode::kPlain, false).find('\033') == std::string::npos);
  CHECK(Recap(Reporter::Mode::kJson, true).find('\033') == std::string::npos);
}

}  // namespace clusterctl
