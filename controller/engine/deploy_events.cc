#include "controller/engine/deploy_events.h"

#include <cstdio>

#include <map>

#include "inventory/hostlist.h"

namespace clusterctl {

const char* ToString(StepStatus status) {
  switch (status) {
    case StepStatus::kOk: return "ok";
    case StepStatus::kChanged: return "changed";
    case StepStatus::kFailed: return "failed";
    case StepStatus::kSkipped: return "skipped";
    case StepStatus::kWouldChange: return "would-change";
  }
  return "?";
}

const char* ToString(HostOutcome outcome) {
  switch (outcome) {
    case HostOutcome::kOk: return "ok";
    case HostOutcome::kFailed: return "failed";
    case HostOutcome::kUnreachable: return "unreachable";
    case HostOutcome::kSkipped: return "skipped";
    case HostOutcome::kStopped: return "stopped";
  }
  return "?";
}

namespace {

using json = nlohmann::json;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

json StepToJson(const std::string& host, const StepReport& step, bool with_diff) {
  json event = {{"event", "step"},          {"host", host},
                {"step", step.identity},    {"status", ToString(step.status)},
                {"handler", step.handler},  {"checked", step.checked},
                {"differences", step.differences}, {"mutating_commands", step.mutating_commands}};
  if (with_diff && !step.diff.empty()) event["diff"] = step.diff;
  if (step.status == StepStatus::kFailed) {
    event["error"] = step.error;
    event["command"] = step.command;
    event["output"] = step.output;
  }
  return event;
}

json RecapToJson(const RecapEvent& recap) {
  int ok = 0, changed = 0, failed = 0, skipped = 0;
  std::map<std::string, std::vector<std::string>> by_outcome;
  for (const HostReport& r : *recap.reports) {
    ok += r.ok;
    changed += r.changed;
    failed += r.failed;
    skipped += r.skipped;
    by_outcome[ToString(r.outcome)].push_back(r.host);
  }
  json hosts = json::object();
  for (const auto& [outcome, names] : by_outcome) hosts[outcome] = CollapseHostList(names);
  // Steps are counted; unreachable hosts have none, so they are counted as hosts.
  const size_t unreachable = by_outcome.count("unreachable") ? by_outcome["unreachable"].size() : 0;
  return {{"event", "recap"}, {"check", recap.check},  {"ok", ok},         {"changed", changed},
          {"failed", failed}, {"skipped", skipped},    {"unreachable", unreachable},
          {"hosts", hosts},   {"elapsed_ms", recap.elapsed.count()}, {"stopped", recap.stopped}};
}

}  // namespace

const char* ToString(HostPhase phase) {
  switch (phase) {
    case HostPhase::kConnecting: return "connecting";
    case HostPhase::kGatheringFacts: return "gathering facts";
  }
  return "connecting";
}

const char* ToString(WaitPhase phase) {
  switch (phase) {
    case WaitPhase::kStarted: return "started";
    case WaitPhase::kStill: return "still";
    case WaitPhase::kEnded: return "ended";
    case WaitPhase::kGaveUp: return "gave up";
  }
  return "started";
}

std::string WaitText(const WaitEvent& wait) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", static_cast<double>(wait.elapsed_ms) / 1000.0);
  const std::string detail = wait.detail.empty() ? "" : ": " + wait.detail;
  switch (wait.phase) {
    case WaitPhase::kStarted: return "waiting for " + wait.what;
    case WaitPhase::kStill: return "still waiting for " + wait.what + " (" + seconds + ")" + detail;
    case WaitPhase::kEnded: return "waited " + std::string(seconds) + " for " + wait.what;
    case WaitPhase::kGaveUp: return "gave up waiting for " + wait.what + " after " + seconds + detail;
  }
  return "waiting for " + wait.what;
}

json EventToJson(const DeployEvent& event, bool with_diff) {
  return std::visit(
      Overloaded{
          [](const RunStartedEvent& e) -> json {
            return {{"event", "run_started"}, {"run", e.run_id}, {"hosts", e.hosts}, {"check", e.check},
                    {"verify", e.verify}};
          },
          [](const HostStartedEvent& e) -> json { return {{"event", "host_started"}, {"host", e.host}}; },
          [](const HostPhaseEvent& e) -> json {
            return {{"event", "host_phase"}, {"host", e.host}, {"phase", ToString(e.phase)}};
          },
          [](const StepStartedEvent& e) -> json {
            return {{"event", "step_started"}, {"host", e.host}, {"step", e.identity}};
          },
          [&](const StepFinishedEvent& e) -> json { return StepToJson(e.host, *e.step, with_diff); },
          [](const NoteEvent& e) -> json { return {{"event", "note"}, {"host", e.host}, {"message", e.message}}; },
          [](const IntentEvent& e) -> json {
            return {{"event", e.opened ? "intent_opened" : "intent_closed"}, {"host", e.host}, {"kind", e.kind},
                    {"target", e.target}, {"reason", e.reason}};
          },
          [](const WaitEvent& e) -> json {
            return {{"event", "wait"},         {"host", e.host},          {"waiting_for", e.what},
                    {"phase", ToString(e.phase)}, {"elapsed_ms", e.elapsed_ms}, {"detail", e.detail}};
          },
          [](const HostFinishedEvent& e) -> json {
            const HostReport& r = *e.report;
            return {{"event", "host_finished"}, {"host", r.host},       {"outcome", ToString(r.outcome)},
                    {"error", r.error},         {"contacted", r.contacted}, {"ok", r.ok},
                    {"changed", r.changed},     {"failed", r.failed},   {"skipped", r.skipped},
                    {"duration_ms", r.duration_ms}};
          },
          [](const MessageEvent& e) -> json { return {{"event", "message"}, {"message", e.text}}; },
          [](const RecapEvent& e) -> json { return RecapToJson(e); },
      },
      event);
}

void RecordingListener::OnEvent(const DeployEvent& event) {
  json j = EventToJson(event, true);
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(std::move(j));
}

std::vector<json> RecordingListener::events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

}  // namespace clusterctl
