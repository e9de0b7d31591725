#include "controller/engine/executor.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fstream>

#include "common/sha256.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::minutes kStepTimeout{60};

bool RecordedCurrent(const PlannedStep& step, const std::string& host, const DeployContext& context) {
  auto host_it = context.last_results->find(host);
  if (host_it == context.last_results->end()) return false;
  auto it = host_it->second.find(step.Identity());
  if (it == host_it->second.end()) return false;
  if (step.skipped) return it->second.status == "skipped";
  return it->second.input_hash == step.input_hash && (it->second.status == "ok" || it->second.status == "changed");
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Task<void> Sleep(std::chrono::milliseconds duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  co_await timer.async_wait(asio::use_awaitable);
}

// One host's run: the connection, the intents it owes, the report it builds.
class HostRun {
 public:
  HostRun(const HostPlan& plan, DeployContext& context) : plan_(plan), context_(context) {
    report_.host = plan.host->name;
    if (auto it = context.open_intents->find(report_.host); it != context.open_intents->end()) {
      for (const Intent& intent : it->second) intents_[intent.target] = intent;
    }
  }

  Task<HostReport> Run() {
    const auto start = Clock::now();
    if (!HostNeedsContact(plan_, context_)) {
      for (const PlannedStep& step : plan_.steps) {
        ++(step.skipped ? report_.skipped : report_.ok);
        report_.steps.push_back({step.Identity(), step.skipped ? "skipped" : "ok", false, false, {}, "", "", "", ""});
      }
      for (const Role* role : plan_.roles) context_.board->MarkDone(role->name, report_.host);
      Finish(start);
      co_return report_;
    }
    report_.contacted = true;
    context_.reporter->HostStarted(report_.host);
    if (!co_await Connect()) {
      Finish(start);
      co_return report_;
    }
    for (const Role* role : plan_.roles) {
      if (!co_await RunRole(*role)) {
        MarkRemainingFailed(role);
        break;
      }
      context_.board->MarkDone(role->name, report_.host);
    }
    if (report_.failed == 0 && report_.outcome != "unreachable") co_await RunLeftoverHandlers();
    co_await agent_->Close(Clock::now() + std::chrono::seconds(5));
    Finish(start);
    co_return report_;
  }

 private:
  Task<bool> Connect() {
    HostConnection connection = co_await ConnectHost(*plan_.host, *context_.remote);
    for (const std::string& note : connection.notes) context_.reporter->Note(report_.host, note);
    if (!connection.agent) {
      report_.outcome = connection.unreachable ? "unreachable" : "failed";
      report_.error = connection.status.message();
      context_.board->MarkHostFailed(report_.host, report_.outcome + ": " + report_.error);
      co_return false;
    }
    agent_ = std::move(connection.agent);
    co_return true;
  }

  void Finish(Clock::time_point start) {
    report_.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    if (report_.outcome == "ok" && report_.failed > 0) report_.outcome = "failed";
    if (context_.writer) {
      const std::string status = report_.outcome == "ok" ? "ok" : report_.outcome;
      const std::optional<std::string> error =
          report_.error.empty() ? std::nullopt : std::optional<std::string>(report_.error);
      std::string host = report_.host;
      int64_t run = context_.run_id;
      context_.writer->Post([host, status, run, error](StateStore& s) { return s.RecordHostOutcome(host, status, run, error); });
    }
    context_.reporter->HostFinished(report_);
  }

  void MarkRemainingFailed(const Role* failed_role) {
    bool after = false;
    for (const Role* role : plan_.roles) {
      if (role == failed_role) after = true;
      if (after) context_.board->MarkFailed(role->name, report_.host, "the host failed earlier: " + report_.error);
    }
    if (report_.outcome == "ok") report_.outcome = "failed";
  }

  void Fail(StepReport step) {
    ++report_.failed;
    if (report_.error.empty()) report_.error = step.identity + ": " + step.error;
    context_.reporter->StepFinished(report_.host, step);
    report_.steps.push_back(std::move(step));
  }

  // Sends one resource request; transport problems become a failed outcome.
  Task<std::pair<nlohmann::json, std::string>> Call(const PlannedStep& step, bool apply) {
    nlohmann::json request = {{"type", "resource"}, {"kind", step.kind}, {"params", step.params}, {"apply", apply}};
    auto reply = co_await agent_->Call(request, step.body, Clock::now() + kStepTimeout);
    if (!reply.ok()) {
      transport_error_ = reply.status();
      co_return std::make_pair(nlohmann::json{{"failed", true}, {"error", reply.status().message()}}, std::string());
    }
    if (reply->header.value("type", "") != "result") {
      co_return std::make_pair(nlohmann::json{{"failed", true}, {"error", "agent: " + reply->header.value("message", std::string("error"))}},
                               std::string());
    }
    co_return std::make_pair(reply->header["outcome"], reply->body);
  }

  StepReport ToReport(const PlannedStep& step, const nlohmann::json& outcome) {
    StepReport r;
    r.identity = step.Identity();
    r.handler = step.handler;
    r.differences = outcome.value("differences", std::vector<std::string>{});
    if (outcome.contains("commands")) {
      for (const auto& command : outcome["commands"]) r.mutating_commands += command.value("mutating", false) ? 1 : 0;
    }
    if (!step.secret) r.diff = outcome.value("diff", std::string());
    if (outcome.value("failed", false)) {
      r.status = "failed";
      r.error = outcome.value("error", std::string("failed"));
      r.command = outcome.value("failed_command", std::string());
      r.output = outcome.value("output", std::string());
    } else if (outcome.value("changed", false)) {
      r.status = context_.options.check ? "would-change" : "changed";
    } else {
      r.status = "ok";
    }
    return r;
  }

  void Record(const PlannedStep& step, const std::string& status, bool changed, int64_t started, const std::string& summary) {
    if (!context_.writer) return;
    StepRecord record;
    record.run_id = context_.run_id;
    record.host = report_.host;
    record.role = step.role->name;
    record.step_id = step.StepId();
    record.input_hash = step.input_hash;
    record.status = status;
    record.changed = changed;
    record.started_at = started;
    record.finished_at = NowMs();
    record.output_summary = summary.size() > 2000 ? summary.substr(0, 2000) : summary;
    context_.writer->Post([record](StateStore& s) { return s.RecordStep(record); });
  }

  // Streams a copy's source to the node in chunks, resuming after what the
  // node already has when that prefix matches the source byte for byte.
  Task<Status> Upload(const PlannedStep& step, const nlohmann::json& state) {
    constexpr size_t kChunk = 4u << 20;
    uint64_t offset = state.value("partial_size", uint64_t{0});
    if (offset > 0) {
      auto prefix = Sha256File(step.copy_source, offset);
      if (!prefix.ok() || *prefix != state.value("partial_sha256", std::string())) offset = 0;
    }
    std::ifstream in(step.copy_source, std::ios::binary);
    if (!in) co_return Status::IoError("cannot read " + step.copy_source);
    in.seekg(static_cast<std::streamoff>(offset));
    const std::string path = step.params["path"].get<std::string>();
    std::string chunk(kChunk, '\0');
    while (in) {
      in.read(chunk.data(), static_cast<std::streamsize>(kChunk));
      const size_t got = static_cast<size_t>(in.gcount());
      if (got == 0 && offset > 0) break;
      nlohmann::json request = {{"type", "upload_chunk"}, {"path", path}, {"offset", offset}};
      const std::string data = chunk.substr(0, got);
      auto reply = co_await agent_->Call(request, data, Clock::now() + std::chrono::minutes(5));
      if (!reply.ok()) {
        transport_error_ = reply.status();
        co_return reply.status();
      }
      if (reply->header.value("type", "") != "result") co_return Status::IoError(reply->header.value("message", std::string("error")));
      offset += got;
      if (got == 0) break;
    }
    co_return Status::Ok();
  }

  // The follow-ups a step owes when it changes something: its handlers, and
  // the role's reboot step if there is one after it.
  std::vector<std::pair<std::string, std::string>> OwedBy(const PlannedStep& step) {
    std::vector<std::pair<std::string, std::string>> owed;  // kind, target
    for (const std::string& notify : step.step->notify) {
      const HandlerRef ref = ParseHandlerRef(notify, step.role->name);
      // Another role's handler counts only where that role runs too.
      const PlannedStep* target = plan_.FindHandler(ref.role, ref.handler);
      if (target && !target->skipped) owed.emplace_back("handler", target->Identity());
    }
    bool after = false;
    for (const PlannedStep& s : plan_.steps) {
      if (&s == &step) after = true;
      if (after && s.role == step.role && s.kind == "reboot" && !s.skipped) {
        owed.emplace_back("reboot", s.Identity());
        break;
      }
    }
    return owed;
  }

  Task<bool> OpenIntents(const std::vector<std::pair<std::string, std::string>>& owed, const PlannedStep& cause) {
    // No structured bindings here: g++ 12 miscompiles them in coroutines
    // when a lambda captures them.
    for (const auto& entry : owed) {
      const std::string kind = entry.first;
      const std::string target = entry.second;
      if (intents_.count(target)) continue;
      std::string host = report_.host;
      int64_t run = context_.run_id;
      std::string reason = "changed by " + cause.Identity();
      auto id = std::make_shared<int64_t>(0);
      // A named function, not a temporary in the co_await: g++ 12 destroys
      // such temporaries twice.
      StateWriter::Write open = [id, run, host, kind, target, reason](StateStore& s) -> Status {
        auto opened = s.OpenIntent(run, host, kind, target, reason);
        if (!opened.ok()) return opened.status();
        *id = *opened;
        return Status::Ok();
      };
      Status committed = co_await context_.writer->Commit(std::move(open), asio::use_awaitable);
      if (!committed.ok()) {
        Fail({cause.Identity(), "failed", false, true, {}, "", "cannot record the follow-up it owes: " + committed.message(), "", ""});
        co_return false;
      }
      intents_[target] = Intent{*id, report_.host, kind, target, reason, nullptr};
    }
    co_return true;
  }

  void CloseIntent(const std::string& target) {
    auto it = intents_.find(target);
    if (it == intents_.end()) return;
    if (context_.writer) {
      int64_t id = it->second.id, run = context_.run_id;
      context_.writer->Post([id, run](StateStore& s) { return s.CloseIntent(id, run); });
    }
    intents_.erase(it);
  }

  Task<bool> RunStep(const PlannedStep& step, bool& role_changed) {
    const int64_t started = NowMs();
    context_.reporter->StepStarted(report_.host, step.Identity());
    const bool check = context_.options.check;
    auto owed = OwedBy(step);
    nlohmann::json outcome;
    std::string body;
    if (!check && !owed.empty()) {
      // Check first: the intents are recorded only for a change about to be made.
      std::tie(outcome, body) = co_await Call(step, false);
      if (!outcome.value("failed", false) && outcome.value("changed", false)) {
        if (!co_await OpenIntents(owed, step)) co_return false;
        std::tie(outcome, body) = co_await Call(step, true);
      }
    } else {
      std::tie(outcome, body) = co_await Call(step, !check);
    }
    if (!check && step.kind == "copy" && outcome.value("failed", false) == false && outcome.contains("extra") &&
        outcome["extra"].value("need_upload", false)) {
      Status uploaded = co_await Upload(step, outcome["extra"]);
      if (uploaded.ok()) {
        std::tie(outcome, body) = co_await Call(step, true);
        outcome["changed"] = true;
      } else {
        outcome = {{"failed", true}, {"error", "uploading " + step.copy_source + ": " + uploaded.message()},
                   {"differences", outcome.value("differences", nlohmann::json::array())}};
      }
    }
    StepReport r = ToReport(step, outcome);
    if (!transport_error_.ok()) {
      report_.outcome = "unreachable";
      report_.error = transport_error_.message();
      context_.board->MarkHostFailed(report_.host, "unreachable: " + report_.error);
      r.error = report_.error;
      Fail(std::move(r));
      co_return false;
    }
    if (r.status == "failed") {
      Record(step, "failed", outcome.value("changed", false), started, r.error + "\n" + r.output);
      Fail(std::move(r));
      co_return false;
    }
    const bool changed = r.status != "ok";
    if (changed) {
      role_changed = true;
      ++report_.changed;
      if (check) {
        for (const auto& entry : owed) notified_in_plan_.emplace(entry.second, step.Identity());  // the first notifier
      }
    } else {
      ++report_.ok;
    }
    Record(step, changed ? "changed" : "ok", changed, started, Join(r.differences, "; "));
    if (!check && outcome.value("has_backup", false) && !step.secret && context_.writer) {
      std::string host = report_.host, path = step.params.value("path", std::string());
      int64_t run = context_.run_id;
      context_.writer->Post([=](StateStore& s) { return s.SaveFileBackup(run, host, path, body); });
    }
    context_.reporter->StepFinished(report_.host, r);
    report_.steps.push_back(std::move(r));
    co_return true;
  }

  // A service restart owed by an intent runs exactly once: the unit's
  // InvocationID before the restart is recorded first; on a resumed run a
  // different InvocationID means the restart already happened.
  Task<bool> RunHandler(const PlannedStep& handler) {
    const std::string target = handler.Identity();
    const bool owed = intents_.count(target) > 0;
    if (context_.options.check) {
      auto notified = notified_in_plan_.find(target);
      if (!owed && notified == notified_in_plan_.end()) co_return true;
      StepReport r{target, "would-change", true, true,
                   {owed ? "owed from an earlier run" : "notified by " + notified->second}, "", "", "", ""};
      if (notified != notified_in_plan_.end()) notified_in_plan_.erase(notified);  // reported once
      ++report_.changed;
      context_.reporter->StepFinished(report_.host, r);
      report_.steps.push_back(std::move(r));
      co_return true;
    }
    if (!owed) co_return true;
    Intent& intent = intents_[target];
    const int64_t started = NowMs();
    context_.reporter->StepStarted(report_.host, target);
    const std::string state = handler.params.value("state", std::string());
    const bool restart = handler.kind == "service" && (state == "restarted" || state == "reloaded");
    if (restart) {
      nlohmann::json probe;
      std::string unused;
      std::tie(probe, unused) = co_await Call(handler, false);
      const nlohmann::json extra = probe.contains("extra") ? probe["extra"] : nlohmann::json::object();
      const std::string current = extra.value("invocation_before", std::string());
      const std::string active_state = extra.value("active_state", std::string());
      if (intent.detail.is_object() && intent.detail.contains("invocation_before")) {
        const std::string before = intent.detail["invocation_before"].get<std::string>();
        // A new invocation that is not running means the earlier restart
        // failed: the restart is still owed.
        if (!current.empty() && current != before && (active_state == "active" || active_state == "reloading")) {
          CloseIntent(target);  // the restart happened before the previous run was interrupted
          ++report_.ok;
          StepReport r{target, "ok", true, true, {"already done by an interrupted run"}, "", "", "", ""};
          context_.reporter->StepFinished(report_.host, r);
          report_.steps.push_back(std::move(r));
          co_return true;
        }
      }
      nlohmann::json detail = {{"invocation_before", current}};
      int64_t id = intent.id;
      StateWriter::Write save = [id, detail](StateStore& s) { return s.SetIntentDetail(id, detail); };
      Status saved = co_await context_.writer->Commit(std::move(save), asio::use_awaitable);
      if (!saved.ok()) {
        Fail({target, "failed", true, true, {}, "", "cannot record handler progress: " + saved.message(), "", ""});
        co_return false;
      }
      intent.detail = detail;
    }
    nlohmann::json outcome;
    std::string body;
    std::tie(outcome, body) = co_await Call(handler, true);
    StepReport r = ToReport(handler, outcome);
    r.differences.insert(r.differences.begin(), intent.reason);
    if (!transport_error_.ok() || r.status == "failed") {
      if (!transport_error_.ok()) {
        report_.outcome = "unreachable";
        report_.error = transport_error_.message();
      }
      Record(handler, "failed", false, started, r.error);
      Fail(std::move(r));
      co_return false;
    }
    r.status = "changed";
    ++report_.changed;
    Record(handler, "changed", true, started, Join(r.differences, "; "));
    CloseIntent(target);
    context_.reporter->StepFinished(report_.host, r);
    report_.steps.push_back(std::move(r));
    co_return true;
  }

  Task<std::string> BootId() {
    nlohmann::json request = {{"type", "exec"}, {"argv", {"cat", "/proc/sys/kernel/random/boot_id"}}};
    auto reply = co_await agent_->Call(request, "", Clock::now() + std::chrono::seconds(30));
    if (!reply.ok()) co_return "";
    co_return std::string(Trim(reply->body));
  }

  // reboot: only when a change in its role (recorded as an intent) owes it.
  Task<bool> RunReboot(const PlannedStep& step) {
    const std::string target = step.Identity();
    const bool owed = intents_.count(target) > 0;
    if (context_.options.check) {
      auto notified = notified_in_plan_.find(target);
      if (owed || notified != notified_in_plan_.end()) {
        StepReport r{target, "would-change", false, true,
                     {owed ? "reboot owed from an earlier run" : "reboot after " + notified->second}, "", "", "", ""};
        ++report_.changed;
        context_.reporter->StepFinished(report_.host, r);
        report_.steps.push_back(std::move(r));
      } else {
        ++report_.ok;
      }
      co_return true;
    }
    if (!owed) {
      ++report_.ok;
      co_return true;
    }
    const int64_t started = NowMs();
    Intent& intent = intents_[target];
    context_.reporter->StepStarted(report_.host, target + " (rebooting)");
    std::string before = co_await BootId();
    if (intent.detail.is_object() && intent.detail.contains("boot_before") &&
        intent.detail["boot_before"].get<std::string>() != before && !before.empty()) {
      CloseIntent(target);  // an interrupted run already rebooted the node
      ++report_.ok;
      co_return true;
    }
    nlohmann::json detail = {{"boot_before", before}};
    int64_t id = intent.id;
    StateWriter::Write save = [id, detail](StateStore& s) { return s.SetIntentDetail(id, detail); };
    Status saved = co_await context_.writer->Commit(std::move(save), asio::use_awaitable);
    if (!saved.ok()) co_return false;
    nlohmann::json request = {{"type", "reboot"}, {"delay_ms", 1000}};
    co_await agent_->Call(request, "", Clock::now() + std::chrono::seconds(30));
    agent_.reset();
    const std::chrono::seconds timeout =
        step.params.contains("timeout") ? std::chrono::seconds(step.params["timeout"].get<int>()) : context_.options.reboot_timeout;
    const auto deadline = Clock::now() + timeout;
    co_await Sleep(std::chrono::seconds(3));
    std::string after;
    while (Clock::now() < deadline) {
      HostConnection connection = co_await ConnectHost(*plan_.host, *context_.remote);
      if (connection.agent) {
        agent_ = std::move(connection.agent);
        after = co_await BootId();
        if (!after.empty() && after != before) break;
        agent_.reset();
      }
      co_await Sleep(std::chrono::seconds(2));
    }
    if (!agent_) {
      report_.outcome = "unreachable";
      report_.error = "did not come back from the reboot within " + std::to_string(timeout.count()) + " s";
      Fail({target, "failed", false, true, {}, "", report_.error, "", ""});
      co_return false;
    }
    CloseIntent(target);
    ++report_.changed;
    Record(step, "changed", true, started, "rebooted: boot id " + before + " -> " + after);
    StepReport r{target, "changed", false, true, {"rebooted (boot id " + before.substr(0, 8) + " -> " + after.substr(0, 8) + ")"}, "", "", "", ""};
    context_.reporter->StepFinished(report_.host, r);
    report_.steps.push_back(std::move(r));
    co_return true;
  }

  // Waits until each role is done on every host of its group; `who` names
  // the waiter while it waits, `failed_prefix` + "(waits for R)" its failure.
  Task<bool> WaitForRoles(const std::vector<RoleWait>& waits, const std::string& who, const std::string& failed_prefix) {
    for (const RoleWait& wait : waits) {
      context_.reporter->StepStarted(report_.host, who + " (waiting for " + wait.role + ")");
      std::string role_name = wait.role;
      std::vector<std::string> members = context_.inventory->MembersOf(wait.group);
      Status ready = co_await context_.board->WaitFor(std::move(role_name), std::move(members), asio::use_awaitable);
      if (!ready.ok()) {
        Fail({failed_prefix + "(waits for " + wait.role + ")", "failed", false, true, {}, "", ready.message(), "", ""});
        co_return false;
      }
    }
    co_return true;
  }

  Task<bool> RunRole(const Role& role) {
    const std::string failed_prefix = role.name + "/";  // named: no temporaries inside co_await (g++ 12)
    if (!co_await WaitForRoles(role.waits_for, role.name, failed_prefix)) co_return false;
    bool role_changed = false;
    for (const PlannedStep& step : plan_.steps) {
      if (step.role != &role) continue;
      if (step.skipped) {
        ++report_.skipped;
        report_.steps.push_back({step.Identity(), "skipped", false, true, {"when is false"}, "", "", "", ""});
        Record(step, "skipped", false, NowMs(), "");
        continue;
      }
      if (step.kind == "reboot") {
        if (!co_await RunReboot(step)) co_return false;
        continue;
      }
      if (!context_.options.verify && RecordedCurrent(step, report_.host, context_)) {
        ++report_.ok;
        report_.steps.push_back({step.Identity(), "ok", false, false, {}, "", "", "", ""});
        continue;
      }
      if (!co_await RunStep(step, role_changed)) co_return false;
    }
    // Every due handler's waits first, so no handler of the role runs
    // before all of them may.
    for (const PlannedStep& handler : plan_.handlers) {
      if (handler.role != &role || handler.skipped) continue;
      if (!co_await WaitBeforeHandler(handler)) co_return false;
    }
    for (const PlannedStep& handler : plan_.handlers) {
      if (handler.role != &role || handler.skipped) continue;
      if (!co_await RunHandler(handler)) co_return false;
    }
    co_return true;
  }

  bool HandlerDue(const PlannedStep& handler) const {
    const std::string target = handler.Identity();
    return intents_.count(target) > 0 || notified_in_plan_.count(target) > 0;
  }

  // A handler with waits_for (restart slurmd only once slurmctld has
  // restarted) waits, when it is due, for those roles on the other hosts.
  Task<bool> WaitBeforeHandler(const PlannedStep& handler) {
    if (handler.step->waits_for.empty() || !HandlerDue(handler) || context_.options.check) co_return true;
    const std::string who = handler.Identity();
    const std::string failed_prefix = who + " ";
    co_return co_await WaitForRoles(handler.step->waits_for, who, failed_prefix);
  }

  // Handlers of roles that already ran on this host, owed by a later role's
  // change (cross-role notify) or left by an interrupted run.
  Task<bool> RunLeftoverHandlers() {
    for (const PlannedStep& handler : plan_.handlers) {
      if (handler.skipped || !HandlerDue(handler)) continue;
      if (!co_await WaitBeforeHandler(handler)) co_return false;
      if (!co_await RunHandler(handler)) co_return false;
    }
    co_return true;
  }

  const HostPlan& plan_;
  DeployContext& context_;
  HostReport report_;
  std::unique_ptr<AgentConnection> agent_;
  std::map<std::string, Intent> intents_;                    // open, by target
  std::map<std::string, std::string> notified_in_plan_;      // target -> step (check mode)
  Status transport_error_;
};

}  // namespace

bool HostNeedsContact(const HostPlan& plan, const DeployContext& context) {
  if (context.options.verify) return true;
  if (auto it = context.open_intents->find(plan.host->name); it != context.open_intents->end() && !it->second.empty()) {
    return true;
  }
  for (const PlannedStep& step : plan.steps) {
    if (step.kind == "reboot") continue;
    if (!RecordedCurrent(step, plan.host->name, context)) return true;
  }
  return false;
}

Task<HostReport> ExecuteHost(const HostPlan& plan, DeployContext& context) {
  HostRun run(plan, context);
  co_return co_await run.Run();
}

}  // namespace clusterctl
