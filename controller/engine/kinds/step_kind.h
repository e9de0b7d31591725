// A resource kind's controller side: what the planner and the executor do
// for a step of that kind besides sending it to the agent (the node side
// lives in agent/resources/, one file per kind).
//
// A kind with controller-side behaviour has one file here that registers
// its StepKind at start-up, the way agent kinds register
// (agent/resources/registry.h):
//
//   const StepKindRegistration kCopy("copy", std::make_unique<CopyKind>());
//
// A kind without one gets the defaults: planned from its rendered
// parameters, checked and applied by the agent alone. Nothing else in the
// engine names a kind. The files are linked as an object library
// (controller/CMakeLists.txt) so that no registration is dropped. What the
// role loader makes of a kind's parameters (a template, a secret's name,
// earlier steps) is declared in the agent kind's parameter table
// (resources::ParamUse).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "controller/engine/executor.h"
#include "controller/engine/wait_report.h"

namespace clusterctl {

// What a kind's planner hook reads: the step as the catalog holds it, the
// host it is planned for, the variables its templates see and the run's
// inputs. Problems go to `diagnostics` (the step is then not planned).
struct KindPlanning {
  const RoleStep& step;
  const Host& host;
  const std::vector<const nlohmann::json*>& stack;
  const PlanInputs& inputs;
  Diagnostics& diagnostics;
  // Controller-side files' sha256 and size by path: each read once a run.
  std::map<std::string, std::pair<std::string, uint64_t>>& file_digests;

  // The file parameter `param` names in the inventory's directory; nullopt
  // after reporting the variable it came from, the path and why it is refused.
  std::optional<std::string> InventoryFile(const std::string& param, const nlohmann::json& params) const;
  // That file's content; nullopt after reporting "<what> '<path>' cannot be read".
  std::optional<std::string> ReadInventoryFile(const std::string& param, const nlohmann::json& params,
                                               const std::string& what) const;
};

// What a kind's executor hooks may do on their host's run, as three narrow
// capabilities and a few run-wide things (HostRun implements them all). The
// run's report, intents and connection stay the engine's: a kind reaches
// them only through these.

// The host's connection.
class KindTransport {
 public:
  virtual ~KindTransport() = default;
  // One resource request for `step`; any failure comes back as a failed
  // result (a lost connection also ends the host's session).
  virtual Task<agent_protocol::ResourceResult> Call(const PlannedStep& step, bool apply) = 0;
  // Sends a chunk of a transfer; a lost connection ends the host's session.
  virtual Task<Status> SendChunk(agent_protocol::UploadChunkRequest request) = 0;
  // Whether the host's session is gone (nothing more is sent on it).
  virtual bool SessionLost() const = 0;
  // The open session. REQUIRES: one is open (not after Disconnect).
  virtual AgentSession& agent() = 0;
  // Drops the session (the node goes away) / opens a new one: true when open.
  virtual void Disconnect() = 0;
  virtual Task<bool> Reconnect() = 0;
};

// The host's intents: actions owed across a crash, recorded before they are taken.
class KindIntents {
 public:
  virtual ~KindIntents() = default;
  // The intent owed for `target` (a step's identity), null when none is
  // open; what a check-mode run's change notified it ("" when nothing).
  virtual Intent* OwedIntent(const std::string& target) = 0;
  virtual std::string NotifiedInPlan(const std::string& target) const = 0;
  virtual void CloseIntent(const std::string& target) = 0;
  // Records the intent's progress durably before the action it describes.
  virtual Task<Status> SaveIntentDetail(Intent& intent, nlohmann::json detail) = 0;
  // The intents `step` owes, opened (recorded) before a change made for it
  // up front (false: the host stops, reported).
  virtual Task<bool> OpenIntentsOwedBy(const PlannedStep& step) = 0;
};

// What the host's run reports: its events, counts, step records and waits.
class KindReport {
 public:
  virtual ~KindReport() = default;
  // True (and the host ends "stopped") once the run was asked to stop.
  virtual bool Stopping(const std::string& next) = 0;
  virtual void Started(const std::string& what) = 0;  // a StepStartedEvent
  virtual void CountOk() = 0;                         // a step that found nothing to do
  // A changed (or would-change) step: counted, reported and listed.
  virtual void Changed(StepReport report) = 0;
  virtual void Fail(StepReport report) = 0;
  // The host ends unreachable with `error`, reported as `step`'s failure.
  virtual void FailUnreachable(const std::string& step, const std::string& error) = 0;
  virtual void Record(const PlannedStep& step, StepStatus status, bool changed, int64_t started,
                      const std::string& summary) = 0;
  virtual void Note(const std::string& message) = 0;  // a note in the run's output
  // A wait outside a step's work (a node's return from its reboot): its
  // events go to the run's listeners, its end with its duration to the
  // state's events (history --run N).
  virtual WaitReport BeginWait(const std::string& what) = 0;
  // Something done to the node outside its steps (a power cycle through its
  // BMC): a note to the run's listeners, and to the state's events as
  // `kind` at `level` ("info", "warning", "error"), kept with its time.
  virtual void Event(const std::string& level, const std::string& kind, const std::string& message) = 0;
};

class KindHost {
 public:
  virtual ~KindHost() = default;
  virtual KindTransport& transport() = 0;
  virtual KindIntents& intents() = 0;
  virtual KindReport& report() = 0;

  virtual const ExecutionOptions& options() const = 0;
  virtual const Clock& clock() const = 0;
  // The host as the inventory has it (its bmc).
  virtual const Host& host() const = 0;
  // The BMCs (node_power.h); null when the run has no way to them.
  virtual NodePower* power() = 0;
  // What a kind keeps for the rest of this host's run (starts as null).
  virtual nlohmann::json& KindMemo(const std::string& kind) = 0;

  // For work done up front (StepKind::UpFront): whether `step` will be sent
  // to the node in this run (not skipped, not recorded as done), and a
  // change made up front for it: when the step runs in its place (and finds
  // nothing left to do), it is reported changed with `differences`.
  virtual bool WillRun(const PlannedStep& step) const = 0;
  virtual void CreditUpFront(const PlannedStep& step, std::vector<std::string> differences) = 0;
  // Before the node goes down on purpose (a reboot that may take up to
  // `down_for`): every registered host phase hears of it (host_run_phase.h; the
  // maintenance silence: phases/maintenance_silence.cc). Never fails.
  virtual Task<void> NodeGoingDown(const std::string& why, std::chrono::seconds down_for) = 0;
};

// The report of a step (or a wait or follow-up) that failed with `error`.
StepReport FailedStep(const std::string& identity, bool handler, std::string error);
// The report of a follow-up (a handler, or a step such as a reboot that the
// controller carries out): its status and why, in one difference line.
StepReport FollowUpReport(const std::string& target, StepStatus status, bool handler, std::string why);

// What a handler's kind found of a restart an interrupted run owed.
enum class OwedProbe { kNotDone, kDone, kFailed };

class StepKind {
 public:
  virtual ~StepKind() = default;

  // Planner: turns the rendered `params` into what the agent gets (the
  // step's body, a controller-side source, computed parameters).
  virtual void Plan(KindPlanning& /*planning*/, nlohmann::json& /*params*/, PlannedStep& /*planned*/) const {}

  // A precondition (assert): checked whenever its host is contacted, even
  // when recorded as holding; plan cannot check one after an earlier change
  // of its role (or a follow-up) that plan does not make.
  virtual bool IsPrecondition() const { return false; }

  // A follow-up step (reboot): nothing of its own to check, never a reason
  // to contact a host; it runs only when an earlier change of its role owes
  // it (`Follows`), recorded as an intent of the kind's name, and is carried
  // out by RunFollowUp (false: the host stops, the kind reported why).
  virtual bool IsFollowUp() const { return false; }
  virtual bool Follows(const PlannedStep& /*self*/, const PlannedStep& /*changed*/) const { return false; }
  virtual Task<bool> RunFollowUp(KindHost& /*host*/, const PlannedStep& /*step*/) const { co_return true; }
  // What plan reports a precondition after this follow-up as checked after.
  virtual std::string FollowUpName() const { return ""; }
  // An intent of this kind an earlier run left whose action may keep the
  // node unreachable for a while (a reboot asked for): connecting waits.
  virtual bool MayKeepNodeDown(const Intent& /*intent*/) const { return false; }

  // Deploy (not plan), after the agent's answer: what the controller adds
  // (copy uploads its source, then applies again). Returns the outcome.
  virtual Task<agent_protocol::ResourceResult> AfterCall(KindHost& /*host*/, const PlannedStep& /*step*/,
                                                         agent_protocol::ResourceResult outcome) const {
    co_return outcome;
  }

  // Deploy (not plan), before each of the host's roles (`next`): work the
  // kind does for many of the host's steps at once (package: the packages
  // of the roles from here to the next change of package sources, in one
  // apt transaction). Each step still runs in its place, credited with what
  // was done for it here (KindHost::CreditUpFront). False: the host stops
  // (the kind reported why).
  virtual Task<bool> UpFront(KindHost& /*host*/, const HostPlan& /*plan*/, const Role& /*next*/) const {
    co_return true;
  }

  // Deploy (not plan), before `step` runs (before its check): work the kind
  // does for it and the steps right after it at once (package: a run of
  // package steps in one transaction), credited like UpFront's. False: the
  // host stops (the kind reported why).
  virtual Task<bool> BeforeStep(KindHost& /*host*/, const HostPlan& /*plan*/, const PlannedStep& /*step*/) const {
    co_return true;
  }

  // Whether this step changes where packages come from: nothing is
  // installed up front past it. A repository does; so does any step that
  // writes under /etc/apt, /etc/yum.repos.d or /etc/dnf (its `path`).
  virtual bool ChangesPackageSources(const PlannedStep& step) const;
  // A package source that may be added up front, before the packages
  // (a repository leading its role), credited in its place like a package.
  virtual bool JoinsUpFrontAsSource() const { return false; }

  // Deploy (not plan): a change about to be made owes `handler` (its intent
  // is open). What the kind records of the handler's target now, durably,
  // before the change (service: the unit's invocation, so that a unit that
  // starts after the change owes no restart). False: the host stops (the
  // kind reported why).
  virtual Task<bool> HandlerNotified(KindHost& /*host*/, const PlannedStep& /*handler*/, Intent& /*intent*/) const {
    co_return true;
  }

  // A handler owed by an intent, before it runs: whether what it does has
  // happened since the change that owed it (kDone: a restart by an
  // interrupted run, or a unit that started after the change), or kFailed
  // after reporting why through `host`.
  virtual Task<OwedProbe> HandlerAlreadyDone(KindHost& /*host*/, const PlannedStep& /*handler*/,
                                             Intent& /*intent*/) const {
    co_return OwedProbe::kNotDone;
  }
};

class StepKindRegistration {
 public:
  // REQUIRES: no controller side is registered for `kind` yet (aborts
  // otherwise: two files claiming one kind is a build mistake).
  StepKindRegistration(const std::string& kind, std::unique_ptr<StepKind> controller_side);
};

// The kind's controller side; the defaults for a kind that registered none.
const StepKind& FindStepKind(const std::string& kind);
// The kinds that registered a controller side (for tests).
std::vector<std::string> StepKindsWithControllerSide();

}  // namespace clusterctl
