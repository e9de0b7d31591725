// The plain report of a plan: what it says when hosts could not be planned.
#include "controller/output/report.h"

#include <doctest/doctest.h>

#include <sstream>
#include <thread>

#include "common/strings.h"

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

// The whole report of a run whose hosts finish in the order of `finished`
// (the recap lists them in the order of `reports`).
std::string Report(Reporter::Mode mode, const std::vector<HostReport>& reports, const std::vector<size_t>& finished,
                   bool check) {
  std::ostringstream out;
  Reporter reporter(mode, out, /*show_diff=*/false);
  reporter.OnEvent(RunStartedEvent{0, reports.size(), check, false});
  for (size_t i : finished) reporter.OnEvent(HostFinishedEvent{&reports[i]});
  reporter.OnEvent(RecapEvent{&reports, std::chrono::milliseconds(5), check, false});
  return out.str();
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

HostReport Host(const std::string& name, HostOutcome outcome, int changed = 0) {
  HostReport r;
  r.host = name;
  r.outcome = outcome;
  r.changed = changed;
  if (outcome == HostOutcome::kUnreachable) r.error = "connection refused";
  return r;
}

}  // namespace

TEST_CASE("a plan with no host reached says so, never 'nothing to do'") {
  CHECK(PlanLine({Host("node01", HostOutcome::kUnreachable), Host("node02", HostOutcome::kUnreachable), Host("node03", HostOutcome::kFailed)}) ==
        "Plan: 0 steps would change on 0 of 3 hosts; 3 hosts could not be planned (node[01-03])");
  CHECK(PlanLine({Host("node01", HostOutcome::kOk), Host("node02", HostOutcome::kUnreachable)}) ==
        "Plan: 0 steps would change on 0 of 2 hosts; 1 host could not be planned (node02)");
  CHECK(PlanLine({Host("node01", HostOutcome::kOk, 2), Host("node02", HostOutcome::kUnreachable)}) ==
        "Plan: 2 steps would change on 1 of 2 hosts; 1 host could not be planned (node02)");
  CHECK(PlanLine({Host("node01", HostOutcome::kOk), Host("node02", HostOutcome::kOk)}) == "Plan: 0 steps would change on 0 of 2 hosts (nothing to do)");
}

TEST_CASE("the recap counts unreachable hosts, which have no steps to count") {
  CHECK(ReportLine({Host("node01", HostOutcome::kUnreachable), Host("node02", HostOutcome::kUnreachable)}, "Recap", /*check=*/false) ==
        "Recap (5ms): ok=0 changed=0 failed=0 skipped=0 unreachable=2");
  CHECK(ReportLine({Host("node01", HostOutcome::kOk)}, "Recap", /*check=*/false) == "Recap (5ms): ok=0 changed=0 failed=0 skipped=0");
}

namespace {

// node01 changed a step, node02 failed one, node03 could not be reached.
std::vector<HostReport> MixedRun() {
  HostReport changed = Host("node01", HostOutcome::kOk, 1);
  changed.contacted = true;
  changed.ok = 1;
  StepReport step;
  step.identity = "web/config";
  step.status = StepStatus::kChanged;
  step.differences = {"content differs"};
  changed.steps.push_back(step);
  HostReport failed = Host("node02", HostOutcome::kFailed);
  failed.contacted = true;
  failed.failed = 1;
  step.identity = "web/service";
  step.status = StepStatus::kFailed;
  step.error = "exit status 3";
  step.command = "systemctl start web";
  step.output = "web.service: failed to start\n";
  failed.steps.push_back(step);
  return {changed, failed, Host("node03", HostOutcome::kUnreachable)};
}

}  // namespace

TEST_CASE("each host is printed once, when it finishes, in the order hosts finish; the recap counts and lists") {
  const std::vector<HostReport> reports = MixedRun();
  for (Reporter::Mode mode : {Reporter::Mode::kPlain, Reporter::Mode::kLive}) {
    for (bool check : {false, true}) {
      CAPTURE(check);
      const std::string text = Report(mode, reports, {2, 1, 0}, check);
      CAPTURE(text);
      CHECK(Count(text, "connection refused") == 1);
      CHECK(Count(text, "node03 UNREACHABLE: connection refused\n") == 1);
      CHECK(Count(text, "node02 FAILED web/service: exit status 3\n    command: systemctl start web\n") == 1);
      CHECK(Count(text, "web.service: failed to start") == 1);
      CHECK(text.find("node03 UNREACHABLE") < text.find("node02 FAILED"));  // the order they finished in
      CHECK(text.find("node02 FAILED") < text.find("Recap"));
      CHECK(text.find("cannot plan") == std::string::npos);
      CHECK(Count(text, "unreachable=1") == 1);
    }
  }
  const std::string plain = Report(Reporter::Mode::kPlain, reports, {2, 1, 0}, false);
  CHECK(Count(plain, "node01: ok (changed=1, failed=0)\n  changed web/config (content differs)\n") == 1);
  CHECK(plain.find("node02 FAILED") < plain.find("node01: ok"));
}

TEST_CASE("a host that ended without its finished event still gets its block, once, before the recap") {
  const std::vector<HostReport> reports = MixedRun();
  const std::string text = Report(Reporter::Mode::kPlain, reports, {0}, true);
  CHECK(Count(text, "node03 UNREACHABLE: connection refused") == 1);
  CHECK(Count(text, "node02 FAILED web/service") == 1);
  CHECK(text.find("node02 FAILED") < text.find("Plan: 1 step would change on 1 of 3 hosts; 2 hosts could not be planned"));
}

TEST_CASE("the live line shows hosts connecting and gathering facts") {
  std::ostringstream out;
  Reporter reporter(Reporter::Mode::kLive, out, false);
  reporter.OnEvent(RunStartedEvent{0, 2, false, false});
  reporter.OnEvent(HostPhaseEvent{"node01", HostPhase::kConnecting});
  CHECK(out.str().find("node01: connecting") != std::string::npos);
  reporter.OnEvent(HostPhaseEvent{"node02", HostPhase::kConnecting});
  std::this_thread::sleep_for(std::chrono::milliseconds(120));  // the line is redrawn at most every 100 ms
  reporter.OnEvent(HostPhaseEvent{"node01", HostPhase::kGatheringFacts});
  CHECK(out.str().find("node01: gathering facts | node02: connecting") != std::string::npos);
}

TEST_CASE("the recap's unreachable count is of hosts, beside the counts of steps, in a mixed run") {
  std::vector<HostReport> reports = MixedRun();
  HostReport lost = Host("node04", HostOutcome::kUnreachable);  // lost during a step: a failed step and an unreachable host
  lost.failed = 1;
  reports.push_back(lost);
  reports.push_back(Host("node05", HostOutcome::kUnreachable));
  CHECK(ReportLine(reports, "Recap", /*check=*/false) == "Recap (5ms): ok=1 changed=1 failed=2 skipped=0 unreachable=3");
  const nlohmann::json recap = EventToJson(RecapEvent{&reports, std::chrono::milliseconds(5), false, false}, false);
  CHECK(recap["unreachable"] == 3);
  CHECK(recap["hosts"]["unreachable"] == "node[03-05]");
}

}  // namespace clusterctl

namespace clusterctl {
namespace {

TEST_CASE("a wait that lasts is a line per host as it goes, and one that gave up a warning naming what was missing") {
  std::ostringstream out;
  Reporter reporter(Reporter::Mode::kPlain, out, /*show_diff=*/false);
  reporter.OnEvent(RunStartedEvent{0, 2, false, false});
  const std::string what = "Prometheus to see node02 healthy before its maintenance silence ends";
  reporter.OnEvent(WaitEvent{"node02", what, WaitPhase::kStarted, 0, ""});
  reporter.OnEvent(WaitEvent{"node03", "the node to come back from kernel/reboot (a new boot id)", WaitPhase::kStarted, 0, ""});
  reporter.OnEvent(WaitEvent{"node03", "the node to come back from kernel/reboot (a new boot id)", WaitPhase::kEnded, 4000, ""});
  reporter.OnEvent(WaitEvent{"node02", what, WaitPhase::kStill, 15000, "alert NodeDown"});
  reporter.OnEvent(WaitEvent{"node02", what, WaitPhase::kGaveUp, 60000, "alert NodeDown"});
  CHECK(out.str() == "node02: still waiting for " + what + " (15.0 s): alert NodeDown\n"
                     "node02: warning: gave up waiting for " + what + " after 60.0 s: alert NodeDown\n");
  // --json: every event, with its phase.
  std::ostringstream json;
  Reporter json_reporter(Reporter::Mode::kJson, json, false);
  json_reporter.OnEvent(WaitEvent{"node02", what, WaitPhase::kStill, 15000, "alert NodeDown"});
  const nlohmann::json line = nlohmann::json::parse(json.str());
  CHECK(line == nlohmann::json{{"event", "wait"}, {"host", "node02"}, {"waiting_for", what}, {"phase", "still"},
                               {"elapsed_ms", 15000}, {"detail", "alert NodeDown"}});
}

// A stream buffer that counts its flushes.
class CountingBuf : public std::stringbuf {
 public:
  int syncs = 0;

 protected:
  int sync() override {
    ++syncs;
    return std::stringbuf::sync();
  }
};

TEST_CASE("--json flushes each event: a pipe's reader sees it as it happens, not 4 KB later") {
  CountingBuf buf;
  std::ostream out(&buf);
  Reporter reporter(Reporter::Mode::kJson, out, false);
  reporter.OnEvent(RunStartedEvent{1, 2, false, false});
  CHECK(buf.syncs == 1);
  reporter.OnEvent(WaitEvent{"node02", "the node to come back", WaitPhase::kStarted, 0, ""});
  CHECK(buf.syncs == 2);
  CHECK(buf.str().find("\"event\":\"wait\"") != std::string::npos);
}

}  // namespace
}  // namespace clusterctl
