// What a deploy or plan run tells its listeners while it runs.
//
// The engine (RunDeployment, the executor) emits typed events and prints
// nothing. Listeners turn them into output: the live view and plain lines on
// a terminal, one JSON object per line for --json (EventToJson, the format
// docs/cli.md documents), messages on stderr, and the daemon's event stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "controller/state/stored_words.h"

namespace clusterctl {

// A step's outcome in a run (StepStatus, controller/state/stored_words.h:
// the state's steps table keeps it). Its words here (ToString) are what
// --json and the daemon's streams carry.
const char* ToString(StepStatus status);  // "ok" | "changed" | "failed" | "skipped" | "would-change"

// A host's outcome in a run: every step ok or changed, a step failed, not
// reached (or lost), skipped (its batch never started), or stopped by a stop request.
enum class HostOutcome { kOk, kFailed, kUnreachable, kSkipped, kStopped };
const char* ToString(HostOutcome outcome);  // "ok" | "failed" | "unreachable" | "skipped" | "stopped"
// Failed or unreachable: what counts against --max-fail and the exit status.
inline bool Failed(HostOutcome outcome) { return outcome == HostOutcome::kFailed || outcome == HostOutcome::kUnreachable; }

struct StepReport {
  std::string identity;  // role/step
  StepStatus status = StepStatus::kOk;
  bool handler = false;
  bool checked = true;   // false: skipped because its recorded result is current
  std::vector<std::string> differences;
  std::string diff;
  std::string error, command, output;
  int mutating_commands = 0;  // commands the agent ran that change the node
};

struct HostReport {
  std::string host;
  HostOutcome outcome = HostOutcome::kOk;
  std::string error;
  bool contacted = false;
  int ok = 0, changed = 0, failed = 0, skipped = 0;
  std::vector<StepReport> steps;
  int64_t duration_ms = 0;
};

struct RunStartedEvent {
  int64_t run_id = 0;  // the run record (a plan has one too)
  size_t hosts = 0;
  bool check = false;
  bool verify = false;
};
struct HostStartedEvent {
  std::string host;
};
// What a host is doing before its steps: connecting, then gathering its
// facts. Its steps' events say the rest.
enum class HostPhase { kConnecting, kGatheringFacts };
const char* ToString(HostPhase phase);  // "connecting" | "gathering facts"
struct HostPhaseEvent {
  std::string host;
  HostPhase phase = HostPhase::kConnecting;
};
struct StepStartedEvent {
  std::string host;
  std::string identity;  // "role/step", or what the host waits for
};
struct StepFinishedEvent {
  std::string host;
  const StepReport* step = nullptr;  // valid during the call
};
struct NoteEvent {
  std::string host;
  std::string message;
};
// A follow-up owed (opened, recorded before the change that owes it) or
// done (closed).
struct IntentEvent {
  std::string host;
  std::string kind;    // handler | reboot
  std::string target;  // role/handler or role/step
  std::string reason;
  bool opened = true;
};
// A wait of a host's run outside the work of its steps (a node's return
// from a reboot, a role on other hosts, Prometheus seeing a node healthy
// before its maintenance silence ends): said when it starts, again every
// so often while it lasts (with what it waits on then), and at its end
// with its duration. An end is also kept in the state's events (`history
// --run N`); kGaveUp is a wait whose bound was reached, `detail` naming
// what was still missing (a warning).
enum class WaitPhase { kStarted, kStill, kEnded, kGaveUp };
const char* ToString(WaitPhase phase);  // "started" | "still" | "ended" | "gave up"
struct WaitEvent {
  std::string host;
  std::string what;  // as in "waiting for WHAT": "node02 to come back from kernel/reboot"
  WaitPhase phase = WaitPhase::kStarted;
  int64_t elapsed_ms = 0;  // since the wait started
  std::string detail;      // kStill: what it waits on now (may be empty); kGaveUp: what was still missing
};
// The wait in words, as the report prints it and the state's events keep
// it: "waiting for X", "still waiting for X (15 s): D", "waited 42.1 s for
// X", "gave up waiting for X after 60.0 s: D".
std::string WaitText(const WaitEvent& wait);
struct HostFinishedEvent {
  const HostReport* report = nullptr;  // valid during the call
};
// A run-level message for the admin (a generated secret, a removed host,
// a problem writing the state).
struct MessageEvent {
  std::string text;
  LogLevel level = LogLevel::kInfo;  // kError for a problem (writing the state)
};
struct RecapEvent {
  const std::vector<HostReport>* reports = nullptr;  // valid during the call
  std::chrono::milliseconds elapsed{0};
  bool check = false;
  bool stopped = false;  // the run was asked to stop before it finished
};

using DeployEvent = std::variant<RunStartedEvent, HostStartedEvent, HostPhaseEvent, StepStartedEvent, StepFinishedEvent, NoteEvent,
                                 IntentEvent, WaitEvent, HostFinishedEvent, MessageEvent, RecapEvent>;

// The --json form of an event ({"event": "...", ...}). File diffs only with
// `with_diff`; they are never produced for secrets.
nlohmann::json EventToJson(const DeployEvent& event, bool with_diff);

class DeployListener {
 public:
  virtual ~DeployListener() = default;
  // Called from the hosts' threads, concurrently: an implementation
  // synchronises itself, returns quickly and never throws.
  virtual void OnEvent(const DeployEvent& event) = 0;
};

// Hands every event to each of several listeners, in order.
class ListenerFanout final : public DeployListener {
 public:
  explicit ListenerFanout(std::vector<DeployListener*> listeners) : listeners_(std::move(listeners)) {}
  void OnEvent(const DeployEvent& event) override {
    for (DeployListener* listener : listeners_) listener->OnEvent(event);
  }

 private:
  std::vector<DeployListener*> listeners_;
};

// Keeps every event as JSON (tests; the daemon's replay of a run's events).
class RecordingListener final : public DeployListener {
 public:
  void OnEvent(const DeployEvent& event) override;
  std::vector<nlohmann::json> events() const;

 private:
  mutable std::mutex mutex_;
  std::vector<nlohmann::json> events_;
};

}  // namespace clusterctl
