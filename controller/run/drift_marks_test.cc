// The hosts' drift marks as runs complete (drift_marks.h), on a real state
// store in a temporary directory.
#include "controller/run/drift_marks.h"

#include <doctest/doctest.h>

#include <map>

#include "common/clock.h"
#include "controller/state/state_store.h"
#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

HostReport Report(const std::string& host, HostOutcome outcome, StepStatus step) {
  HostReport report;
  report.host = host;
  report.outcome = outcome;
  report.steps.push_back({.identity = "chrony/config", .status = step});
  return report;
}

class MarksHarness {
 public:
  MarksHarness() {
    auto opened = StateStore::OpenForWriting(StatePaths{dir_.path()}, {&clock_, &probe_, "test"});
    REQUIRE_MESSAGE(opened.ok(), opened.status().message());
    state_ = std::move(opened).value();
    REQUIRE(state_->SyncInventoryHosts({{"a", "10.0.0.1"}, {"b", "10.0.0.2"}, {"c", "10.0.0.3"}}).ok());
  }
  StateStore& state() { return *state_; }
  void Mark(const std::string& host, bool drifted) { REQUIRE(state_->SetHostDrifted(host, drifted).ok()); }
  std::map<std::string, bool> Marks() {
    auto hosts = state_->ListHosts();
    REQUIRE(hosts.ok());
    std::map<std::string, bool> marks;
    for (const HostRecord& h : *hosts) marks[h.name] = h.drifted;
    return marks;
  }

 private:
  testing::TempDir dir_;
  SystemClock clock_;
  SystemFilesystemProbe probe_;
  std::unique_ptr<StateStore> state_;
};

DeploymentResult Completed(std::vector<HostReport> hosts) {
  DeploymentResult result;
  result.hosts = std::move(hosts);
  return result;
}

TEST_CASE("drift marks: a drift check marks the hosts with a step that would change, and unmarks the others") {
  MarksHarness h;
  h.Mark("b", true);
  h.Mark("c", true);
  DeploymentOptions drift_check{.check = true, .verify = true};
  DeploymentResult result = Completed({Report("a", HostOutcome::kOk, StepStatus::kWouldChange),
                                       Report("b", HostOutcome::kOk, StepStatus::kOk),
                                       Report("c", HostOutcome::kUnreachable, StepStatus::kOk)});
  CHECK(RecordDriftMarks(h.state(), RunKind::kDrift, drift_check, result).empty());
  // c was not checked: its mark stays.
  CHECK(h.Marks() == std::map<std::string, bool>{{"a", true}, {"b", false}, {"c", true}});
}

TEST_CASE("drift marks: only a deploy that checked every step of every role clears them, on the hosts it left ok") {
  MarksHarness h;
  for (const char* host : {"a", "b", "c"}) h.Mark(host, true);
  DeploymentResult result = Completed({Report("a", HostOutcome::kOk, StepStatus::kChanged),
                                       Report("b", HostOutcome::kFailed, StepStatus::kFailed)});
  DeploymentOptions plain;                                   // deploy without --verify: steps current by record were not checked
  DeploymentOptions plan{.check = true, .verify = true};     // a plan --verify changes nothing
  DeploymentOptions some_roles{.verify = true, .roles = {"chrony"}};
  for (const auto& [kind, options] : std::vector<std::pair<RunKind, DeploymentOptions>>{
           {RunKind::kDeploy, plain}, {RunKind::kPlan, plan}, {RunKind::kDeploy, some_roles}}) {
    CHECK(RecordDriftMarks(h.state(), kind, options, result).empty());
    CHECK(h.Marks() == std::map<std::string, bool>{{"a", true}, {"b", true}, {"c", true}});
  }
  CHECK(RecordDriftMarks(h.state(), RunKind::kDeploy, {.verify = true}, result).empty());
  CHECK(h.Marks() == std::map<std::string, bool>{{"a", false}, {"b", true}, {"c", true}});
}

TEST_CASE("drift marks: a run that ended before its hosts (invalid input) leaves them") {
  MarksHarness h;
  h.Mark("a", true);
  DeploymentResult result = Completed({Report("a", HostOutcome::kOk, StepStatus::kOk)});
  result.ending = DeploymentResult::Ending::kInvalidInput;
  CHECK(RecordDriftMarks(h.state(), RunKind::kDeploy, {.verify = true}, result).empty());
  CHECK(h.Marks()["a"]);
}

}  // namespace
}  // namespace clusterctl
