#include "controller/engine/deploy_run.h"

#include <atomic>
#include <cstdlib>
#include <set>

#include "common/strings.h"
#include "controller/catalog/release_mix.h"
#include "controller/catalog/variable_check.h"
#include "controller/engine/declared_secrets.h"
#include "controller/engine/facts_check.h"
#include "controller/engine/planner.h"
#include "controller/engine/role_board.h"
#include "controller/engine/state_writer.h"
#include "controller/state/secret_vault.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

using TimePoint = std::chrono::steady_clock::time_point;

const Clock& ClockOf(const DeploymentInputs& in) {
  static const SystemClock system;
  return in.clock ? *in.clock : system;
}

// A session opened for facts that waited this long is pinged before its
// host's steps use it (an idle SSH session may have been dropped meanwhile).
constexpr std::chrono::seconds kIdleBeforePing{30};

HostReport EndedReport(const std::string& host, HostOutcome outcome, std::string error) {
  HostReport report;
  report.host = host;
  report.outcome = outcome;
  report.error = std::move(error);
  return report;
}

// One run of RunDeployment; the phases in the order of deploy_run.h.
class Deployment {
 public:
  Deployment(const DeploymentInputs& in, SessionFactory& sessions, DeployListener& listener, const CancelToken& cancel)
      : in_(in),
        clock_(ClockOf(in)),
        sessions_(sessions),
        listener_(listener),
        cancel_(cancel),
        open_(in.hosts.size()),
        opened_at_(in.hosts.size()),
        reports_(in.hosts.size()),
        reported_(in.hosts.size(), false) {}

  DeploymentResult Run() {
    const auto start = clock_.Monotonic();
    listener_.OnEvent(RunStartedEvent{in_.run_id, in_.hosts.size(), in_.options.check,
                                      in_.options.verify});
    if (LoadState() && PrepareSecrets()) {
      GatherFacts();
      SetAsideBadFacts();
      if (!cancel_.cancelled() && Plan()) {
        Execute();
        FinishRemovals();
      }
    }
    CloseUnusedSessions();
    if (result_.ending != DeploymentResult::Ending::kCompleted) return std::move(result_);
    for (size_t i = 0; i < reports_.size(); ++i) {
      if (!reports_[i]) reports_[i] = EndedReport(in_.hosts[i]->name, HostOutcome::kStopped, "not started: the run was stopped");
      result_.changed += reports_[i]->changed;
      result_.failed += reports_[i]->failed;
      result_.hosts.push_back(std::move(*reports_[i]));
    }
    result_.stopped = cancel_.cancelled();
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Monotonic() - start);
    listener_.OnEvent(RecapEvent{&result_.hosts, elapsed, in_.options.check, result_.stopped});
    return std::move(result_);
  }

 private:
  bool Stop(DeploymentResult::Ending ending, std::string error) {
    result_.ending = ending;
    result_.error = std::move(error);
    return false;
  }
  void Message(std::string text, LogLevel level = LogLevel::kInfo) {
    listener_.OnEvent(MessageEvent{std::move(text), level});
  }

  // The stored facts, last step results, open intents, and hosts that left
  // the inventory.
  bool LoadState() {
    auto stored = in_.state->LoadFacts();
    auto last = in_.state->LoadLastStepResults();
    auto intents = in_.state->LoadOpenIntents();
    auto known = in_.state->ListHosts();
    for (const Status* s : {&stored.status(), &last.status(), &intents.status(), &known.status()}) {
      if (!s->ok()) return Stop(DeploymentResult::Ending::kFailed, "state: " + s->message());
    }
    for (auto& [host, record] : *stored) facts_[host] = std::move(record.facts);
    last_results_ = std::move(last).value();
    for (Intent& i : *intents) intents_by_host_[i.host].push_back(std::move(i));
    for (const HostRecord& record : *known) {
      if (record.in_inventory || record.status == HostStatus::kRemoved || record.status == HostStatus::kNever) continue;
      leaving_.push_back(record.name);
      removed_hosts_.push_back({{"name", record.name}, {"address", record.address.value_or("")}});
    }
    return true;
  }

  // Phase 2: the hosts without stored facts the roles can read, or whose
  // stored release cannot join the cluster (reinstalled since?), and all
  // with verify. Their sessions stay open for their steps.
  void GatherFacts() {
    std::vector<size_t> need;
    const std::map<std::string, std::string> mixed = MixedReleaseRefusalsOfRun();
    for (size_t i = 0; i < in_.hosts.size(); ++i) {
      auto stored = facts_.find(in_.hosts[i]->name);
      if (in_.options.verify || stored == facts_.end() || !UnusableFacts(stored->second).empty() ||
          mixed.count(in_.hosts[i]->name)) {
        need.push_back(i);
      }
    }
    if (need.empty()) return;
    std::vector<std::optional<nlohmann::json>> gathered(in_.hosts.size());
    sessions_.ForEach(need.size(), [&](size_t k) -> Task<void> {
      const size_t i = need[k];
      try {
        gathered[i] = co_await GatherOne(i);
      } catch (const std::exception& e) {
        EndNow(i, HostOutcome::kFailed, std::string("internal error: ") + e.what());
      }
    });
    std::vector<std::pair<std::string, nlohmann::json>> to_save;
    for (size_t i = 0; i < gathered.size(); ++i) {
      if (!gathered[i]) continue;
      facts_[in_.hosts[i]->name] = *gathered[i];
      to_save.emplace_back(in_.hosts[i]->name, std::move(*gathered[i]));
    }
    Status saved = in_.state->SaveFacts(in_.run_id, to_save);
    if (!saved.ok()) Message("clusterctl: saving facts: " + saved.message(), LogLevel::kError);
  }

  Task<std::optional<nlohmann::json>> GatherOne(size_t i) {
    const Host& host = *in_.hosts[i];
    if (cancel_.cancelled()) co_return std::nullopt;  // reported as not started
    listener_.OnEvent(HostPhaseEvent{host.name, HostPhase::kConnecting});
    OpenedSession opened = co_await sessions_.Open(host, &cancel_);
    for (const std::string& note : opened.notes) listener_.OnEvent(NoteEvent{host.name, note});
    if (!opened.session) {
      EndNow(i, opened.unreachable ? HostOutcome::kUnreachable : HostOutcome::kFailed, opened.status.message());
      co_return std::nullopt;
    }
    listener_.OnEvent(HostPhaseEvent{host.name, HostPhase::kGatheringFacts});
    auto facts = co_await opened.session->Facts(clock_.Monotonic() + std::chrono::seconds(60));
    if (!facts.ok()) {
      const bool lost = IsTransportFailure(facts.status());
      EndNow(i, lost ? HostOutcome::kUnreachable : HostOutcome::kFailed, "gathering facts: " + facts.status().message());
      co_return std::nullopt;
    }
    open_[i] = std::move(opened.session);
    opened_at_[i] = clock_.Monotonic();
    co_return std::move(facts).value();
  }

  // A host that failed while its facts were gathered is reported at once,
  // not when the slowest host's facts are in. Called on the host's strand.
  void EndNow(size_t i, HostOutcome outcome, std::string error) {
    reports_[i] = EndedReport(in_.hosts[i]->name, outcome, std::move(error));
    reported_[i] = true;
    listener_.OnEvent(HostFinishedEvent{&*reports_[i]});
  }

  // Why a host with these facts is not planned: facts the roles cannot read
  // (facts_check.h), or an OS release clusterctl refuses (platforms.h);
  // empty when it is planned.
  std::string UnusableFacts(const nlohmann::json& facts) const {
    const std::vector<std::string> problems = FactsProblems(facts);
    if (!problems.empty()) return "the node's facts cannot be used: " + Join(problems, "; ");
    const std::string release = in_.catalog->platforms().Refusal(facts.at("os"));
    if (!release.empty()) return release;
    return in_.catalog->platforms().ArchitectureRefusal(facts.value("kernel", nlohmann::json()));
  }

  // The hosts of the run whose release cannot work with the cluster's
  // (release_mix.h), judged against every inventory host whose facts are
  // known (a controller outside --limit too, from its stored facts).
  std::map<std::string, std::string> MixedReleaseRefusalsOfRun() const {
    std::vector<MixHost> hosts;
    for (const Host& host : in_.inventory->hosts) {
      auto facts = facts_.find(host.name);
      if (facts == facts_.end() || !facts->second.is_object()) continue;
      std::vector<std::string> roles;
      for (const Role* role : in_.catalog->RolesFor(host, *in_.inventory, {})) roles.push_back(role->name);
      const Release* release = in_.catalog->platforms().Find(facts->second.value("os", nlohmann::json()));
      hosts.push_back(MixHostOf(host.name, release, roles));
    }
    std::map<std::string, std::string> refusals = MixedReleaseRefusals(hosts);
    std::set<std::string> in_run;
    for (const Host* host : in_.hosts) in_run.insert(host->name);
    std::erase_if(refusals, [&](const auto& entry) { return !in_run.count(entry.first); });
    return refusals;
  }

  // Unusable facts fail their host, with the reason, before anything
  // changes, and are kept out of every other host's plan; the other hosts
  // go on. A host of a release planned but never deployed here gets a note.
  void SetAsideBadFacts() {
    std::map<std::string, std::string> bad;
    for (auto it = facts_.begin(); it != facts_.end();) {
      std::string why = UnusableFacts(it->second);
      if (why.empty()) {
        ++it;
        continue;
      }
      bad[it->first] = std::move(why);
      it = facts_.erase(it);
    }
    for (auto& [name, why] : MixedReleaseRefusalsOfRun()) {
      facts_.erase(name);
      bad[name] = std::move(why);
    }
    for (size_t i = 0; i < in_.hosts.size(); ++i) {
      const std::string& name = in_.hosts[i]->name;
      auto found = bad.find(name);
      if (found != bad.end() && !reports_[i]) reports_[i] = EndedReport(found->first, HostOutcome::kFailed, found->second);
      auto facts = facts_.find(name);
      if (reports_[i] || facts == facts_.end()) continue;
      const Release* release = in_.catalog->platforms().Find(facts->second.at("os"));
      if (release && release->support == ReleaseSupport::kPlanned) {
        listener_.OnEvent(NoteEvent{name, release->Title() + " is planned only: " + release->why + " (docs/platforms.md)"});
      }
      const Architecture* arch = in_.catalog->platforms().FindArchitecture(facts->second.value("kernel", nlohmann::json()));
      if (arch && arch->support == ReleaseSupport::kPlanned) {
        listener_.OnEvent(NoteEvent{name, arch->name + " is planned only: " + arch->why + " (docs/platforms.md)"});
      }
    }
  }

  // Phase 1: the secrets of the roles in use. A host's roles follow from its
  // groups: resolved once per distinct set of groups.
  bool PrepareSecrets() {
    std::vector<const Role*> roles_in_use;
    std::set<std::vector<std::string>> group_sets;
    for (const Host* host : in_.hosts) {
      if (!group_sets.insert(host->groups).second) continue;
      for (const Role* role : in_.catalog->RolesFor(*host, *in_.inventory, in_.options.roles)) {
        roles_in_use.push_back(role);
      }
    }
    auto known = in_.state->KnownSecrets();
    if (!known.ok()) return Stop(DeploymentResult::Ending::kFailed, "state: " + known.status().message());
    vault_ = std::make_unique<SecretVault>(in_.state->paths().secrets(), /*persist=*/!in_.options.check);
    Status prepared = vault_->Prepare(Catalog::SecretsOf(roles_in_use), *known, in_.options.rotate_secrets);
    // A --rotate-secret that no role in use declares is the admin's input
    // (a usage error, exit 2); anything else is the state's secrets.
    if (!prepared.ok() && prepared.code() == Status::Code::kInvalidArgument) {
      return Stop(DeploymentResult::Ending::kInvalidInput, "clusterctl: " + prepared.message() + "\n");
    }
    if (!prepared.ok()) return Stop(DeploymentResult::Ending::kFailed, prepared.message());
    if (!in_.options.check) {
      std::vector<std::string> names;
      for (const auto& [name, value] : vault_->values()) names.push_back(name);
      if (Status recorded = in_.state->RecordSecrets(in_.run_id, names); !recorded.ok()) {
        return Stop(DeploymentResult::Ending::kFailed, "state: " + recorded.message());
      }
    }
    for (const std::string& name : vault_->generated()) {
      Message((in_.options.check ? "would generate secret " : "generated secret ") + name + " (kept in " +
              in_.state->paths().secrets() + ")");
    }
    return true;
  }

  // Phase 3: every host whose facts could be gathered.
  bool Plan() {
    if (vault_) MaskDeclaredSecrets(*in_.catalog, *in_.inventory, *vault_);
    PlanInputs inputs{in_.inventory, in_.catalog, &facts_, vault_.get(), in_.options.roles};
    inputs.removed_hosts = removed_hosts_;
    inputs.tags = in_.options.tags;
    Planner planner(inputs);
    Diagnostics diagnostics;
    for (size_t i = 0; i < in_.hosts.size(); ++i) {
      if (reports_[i]) continue;
      const std::vector<std::string> left_out = planner.HostProblems(in_.hosts[i]->name);
      if (!left_out.empty()) {  // its facts, not the inventory: it fails alone
        reports_[i] = EndedReport(in_.hosts[i]->name, HostOutcome::kFailed,
                                  "the node's facts cannot be used: " + Join(left_out, "; "));
        continue;
      }
      plans_.push_back(planner.Plan(*in_.hosts[i], diagnostics));
      plan_host_.push_back(i);
    }
    if (diagnostics.has_errors()) return Stop(DeploymentResult::Ending::kInvalidInput, diagnostics.ToString());
    return true;
  }

  // Phase 4.
  void Execute() {
    RoleBoard board;
    std::unique_ptr<StateWriter> writer;
    if (!in_.options.check) writer = std::make_unique<StateWriter>(*in_.state);
    ExecutionOptions execution = in_.options.execution;
    execution.check = in_.options.check;
    execution.verify = in_.options.verify;
    DeployContext context{&sessions_, &cancel_,  writer.get(), &board,         &listener_,      in_.inventory,
                          vault_.get(), in_.run_id, execution,    &last_results_, &intents_by_host_};
    context.clock = &clock_;
    context.silences = in_.silences;
    context.power = in_.power;
    ReportEarlyFailures(board, writer.get());
    const size_t batch = in_.options.batch_size == 0 ? std::max<size_t>(1, plans_.size()) : in_.options.batch_size;
    for (size_t first = 0; first < plans_.size(); first += batch) {
      const size_t count = std::min(batch, plans_.size() - first);
      for (size_t p = first; p < first + count; ++p) {
        for (const Role* role : plans_[p].roles) board.Expect(role->name, plans_[p].host->name);
      }
      sessions_.ForEach(count, [&](size_t k) -> Task<void> { co_await ExecuteOne(first + k, context); });
    }
    if (writer) {
      Status written = writer->Flush();
      if (!written.ok()) Message("clusterctl: writing the state: " + written.message(), LogLevel::kError);
    }
  }

  // Hosts that failed before planning: waits on their roles fail with the
  // reason, and the state records the failure as a host's own run does (it
  // kept the outcome of the host's last run: "ok" for a node now refused or
  // set aside for its facts).
  void ReportEarlyFailures(RoleBoard& board, StateWriter* writer) {
    for (size_t i = 0; i < in_.hosts.size(); ++i) {
      if (!reports_[i]) continue;
      if (reports_[i]->outcome == HostOutcome::kFailed || reports_[i]->outcome == HostOutcome::kUnreachable) {
        ++failures_;
        if (writer) {
          writer->Post([host = reports_[i]->host, status = *RecordedHostStatus(reports_[i]->outcome), run = in_.run_id,
                        error = reports_[i]->error](StateStore& s) { return s.RecordHostOutcome(host, status, run, error); });
        }
      }
      for (const Role* role : in_.catalog->RolesFor(*in_.hosts[i], *in_.inventory, in_.options.roles)) {
        board.Expect(role->name, in_.hosts[i]->name);
      }
      board.MarkHostFailed(in_.hosts[i]->name, std::string(ToString(reports_[i]->outcome)) + ": " + reports_[i]->error);
      if (!reported_[i]) listener_.OnEvent(HostFinishedEvent{&*reports_[i]});
    }
  }

  Task<void> ExecuteOne(size_t p, DeployContext& context) {
    const size_t i = plan_host_[p];
    const std::string& host = in_.hosts[i]->name;
    const size_t budget = in_.hosts.size() * static_cast<size_t>(in_.options.max_fail_percent) / 100;
    std::string not_started;
    if (cancel_.cancelled()) {
      reports_[i] = EndedReport(host, HostOutcome::kStopped, "not started: the run was stopped");
    } else if (in_.options.max_fail_percent < 100 && failures_.load() > budget) {
      reports_[i] = EndedReport(host, HostOutcome::kSkipped, "not started: the failure budget (--max-fail " +
                                                     std::to_string(in_.options.max_fail_percent) + "%) is spent");
    }
    if (reports_[i]) {
      context.board->MarkHostFailed(host, reports_[i]->error);
      listener_.OnEvent(HostFinishedEvent{&*reports_[i]});
      co_return;
    }
    std::unique_ptr<AgentSession> session = co_await StillAlive(std::move(open_[i]), opened_at_[i]);
    try {
      reports_[i] = co_await ExecuteHost(plans_[p], context, std::move(session));
    } catch (const std::exception& e) {
      // The barrier: whatever went wrong, this host fails with a message and
      // no host waiting on its roles waits forever.
      reports_[i] = EndedReport(host, HostOutcome::kFailed, std::string("internal error: ") + e.what());
      context.board->MarkHostFailed(host, reports_[i]->error);
      listener_.OnEvent(HostFinishedEvent{&*reports_[i]});
    }
    if (reports_[i]->outcome == HostOutcome::kFailed || reports_[i]->outcome == HostOutcome::kUnreachable) ++failures_;
  }

  Task<std::unique_ptr<AgentSession>> StillAlive(std::unique_ptr<AgentSession> session, TimePoint since) {
    if (!session || clock_.Monotonic() - since < kIdleBeforePing) co_return std::move(session);
    Status alive = co_await session->Ping(clock_.Monotonic() + std::chrono::seconds(15));
    if (!alive.ok()) session.reset();  // ExecuteHost connects again
    co_return std::move(session);
  }

  // Phase 5: hosts that left the inventory, once every other host converged
  // (the roles drained them and rewrote the cluster's files without them).
  void FinishRemovals() {
    if (in_.options.check || leaving_.empty()) return;
    bool converged = !cancel_.cancelled();
    for (const auto& report : reports_) converged = converged && report && report->outcome == HostOutcome::kOk;
    if (!converged) {
      Message(CollapseHostList(leaving_) +
              ": left the inventory; removal not finished (see the failures above); deploy again",
              LogLevel::kWarning);
      return;
    }
    for (const std::string& host : leaving_) {
      Status marked = in_.state->MarkHostRemoved(host, in_.run_id);
      if (!marked.ok()) {
        Message("clusterctl: state: " + marked.message(), LogLevel::kError);
        return;
      }
      Message(RemovalMessage(host));
    }
  }

  // What the admin must know about a removed machine: what stays on it,
  // including the cluster secrets its roles installed.
  std::string RemovalMessage(const std::string& host) {
    auto roles = in_.state->RolesRecordedFor(host);
    std::set<std::string> secrets;
    if (roles.ok()) {
      for (const std::string& name : *roles) {
        if (const Role* role = in_.catalog->Find(name)) {
          for (const auto& [secret, spec] : role->secrets) secrets.insert(secret);
        }
      }
    }
    return host + ": removed from the cluster (drained, and gone from the files every node shares). " +
           "clusterctl no longer manages it. Left on the machine: what roles " +
           (roles.ok() && !roles->empty() ? Join(*roles, ", ") : std::string("(none recorded)")) +
           " installed (packages, files, services that still run)" +
           (secrets.empty() ? ""
                            : ", and the cluster secrets they installed (" +
                                  Join(std::vector<std::string>(secrets.begin(), secrets.end()), ", ") +
                                  "): re-image the machine or rotate them") +
           ".";
  }

  // Sessions opened for facts whose hosts never ran (planning failed, not
  // started): the agents are asked to exit.
  void CloseUnusedSessions() {
    std::vector<size_t> open;
    for (size_t i = 0; i < open_.size(); ++i) {
      if (open_[i]) open.push_back(i);
    }
    sessions_.ForEach(open.size(), [&](size_t k) -> Task<void> {
      co_await open_[open[k]]->Close(clock_.Monotonic() + std::chrono::seconds(5));
    });
    open_.clear();
  }

  const DeploymentInputs& in_;
  const Clock& clock_;
  SessionFactory& sessions_;
  DeployListener& listener_;
  const CancelToken& cancel_;
  DeploymentResult result_;

  std::map<std::string, nlohmann::json> facts_;
  std::map<std::string, std::map<std::string, StepResult>> last_results_;
  std::map<std::string, std::vector<Intent>> intents_by_host_;
  std::vector<std::string> leaving_;
  nlohmann::json removed_hosts_ = nlohmann::json::array();
  std::unique_ptr<SecretVault> vault_;

  // By the selection's index.
  std::vector<std::unique_ptr<AgentSession>> open_;
  std::vector<TimePoint> opened_at_;
  std::vector<std::optional<HostReport>> reports_;
  std::vector<char> reported_;  // its HostFinishedEvent was sent (not a vector<bool>: hosts write side by side)

  std::vector<HostPlan> plans_;
  std::vector<size_t> plan_host_;  // plans_[p] is for in_.hosts[plan_host_[p]]
  std::atomic<size_t> failures_{0};
};

}  // namespace

bool DeploymentResult::converged() const {
  if (ending != Ending::kCompleted || stopped) return false;
  for (const HostReport& r : hosts) {
    if (r.outcome != HostOutcome::kOk) return false;
  }
  return true;
}

DeploymentResult RunDeployment(const DeploymentInputs& inputs, SessionFactory& sessions, DeployListener& listener,
                               const CancelToken& cancel) {
  Deployment deployment(inputs, sessions, listener, cancel);
  return deployment.Run();
}

}  // namespace clusterctl
