#include "controller/daemon/jobs.h"

#include "common/strings.h"
#include "controller/engine/deploy_run.h"
#include "controller/engine/tag_selection.h"
#include "controller/validate/checks.h"
#include "controller/validate/thresholds.h"
#include "controller/validate/validation_record.h"
#include "inventory/host_selection.h"

namespace clusterctl {
namespace {

constexpr size_t kRecentJobs = 20;
constexpr std::chrono::seconds kStopGrace{30};

// The plan as the API shows it: per host, the steps that would change and why.
nlohmann::json PlanJson(const std::vector<HostReport>& reports, int64_t now_ms) {
  nlohmann::json hosts = nlohmann::json::object();
  int changes = 0;
  for (const HostReport& r : reports) {
    nlohmann::json steps = nlohmann::json::array();
    for (const StepReport& s : r.steps) {
      if (s.status != "would-change") continue;
      steps.push_back({{"step", s.identity}, {"handler", s.handler}, {"why", s.differences}});
      ++changes;
    }
    hosts[r.host] = {{"outcome", r.outcome}, {"error", r.error}, {"steps", steps}};
  }
  return {{"at", now_ms}, {"changes", changes}, {"hosts", hosts}};
}

// The run record of a job that ended by an exception: failed, with its
// message. Best effort: the state itself may be what failed.
void RecordFailedRun(RunSession& session, const nlohmann::json& summary) noexcept {
  try {
    session.Finish({}, RunStatus::kFailed, summary);
  } catch (...) {
  }
}

}  // namespace

const char* ToString(JobRequest::Kind kind) {
  switch (kind) {
    case JobRequest::Kind::kDeploy: return "deploy";
    case JobRequest::Kind::kPlan: return "plan";
    case JobRequest::Kind::kValidate: return "validate";
    case JobRequest::Kind::kDrift: return "drift";
  }
  return "?";
}

nlohmann::json JobInfo::ToJson() const {
  return {{"job", job},
          {"run", run_id},
          {"kind", kind},
          {"origin", origin},
          {"started_at", started_at_ms},
          {"finished_at", finished_at_ms ? nlohmann::json(finished_at_ms) : nlohmann::json(nullptr)},
          {"status", status},
          {"summary", summary}};
}

// A request checked against the site before anything is locked.
struct JobRunner::Prepared {
  std::vector<const Host*> hosts;
  size_t batch_size = 0;
  std::optional<CheckSelection> checks;
  std::map<std::string, Thresholds> thresholds;
};

Result<std::unique_ptr<JobRunner::Prepared>> JobRunner::Prepare(const Site& site, const JobRequest& request) const {
  auto prepared = std::make_unique<Prepared>();
  auto selected = SelectHosts(*site.inventory, request.limit);
  if (!selected.ok()) return Status::InvalidArgument("limit: " + selected.status().message());
  prepared->hosts = std::move(selected).value();
  std::optional<size_t> batch = ParseBatchSize(request.batch, prepared->hosts.size());
  if (!batch) return Status::InvalidArgument("batch: '" + request.batch + "' is not N or P% (1-100)");
  prepared->batch_size = *batch;
  for (const std::string& role : request.roles) {
    if (!site.catalog->Find(role)) return Status::InvalidArgument("roles: unknown role '" + role + "'");
  }
  Diagnostics tags;
  CheckTagNames(*site.catalog, {request.tags, request.skip_tags}, tags);
  if (tags.has_errors()) return Status::InvalidArgument(tags.items().front().message);
  if (request.max_fail_percent < 0 || request.max_fail_percent > 100) {
    return Status::InvalidArgument("max_fail: a percentage, 0-100");
  }
  if (request.kind == JobRequest::Kind::kValidate) {
    auto checks = CheckSelection::Parse(request.checks);
    if (!checks.ok()) return Status::InvalidArgument("checks: " + checks.status().message());
    prepared->checks = std::move(checks).value();
    for (const Host& h : site.inventory->hosts) {
      auto t = ReadThresholds(h.vars);
      if (!t.ok()) return Status::InvalidArgument("host " + h.name + ": " + t.status().message());
      prepared->thresholds[h.name] = *t;
    }
  }
  return prepared;
}

Result<JobInfo> JobRunner::Start(std::shared_ptr<const Site> site, JobRequest request) {
  std::lock_guard<std::mutex> one_start(start_mutex_);
  auto prepared = Prepare(*site, request);
  if (!prepared.ok()) return prepared.status();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_) {
      return Status::Busy("a " + running_->kind + " runs (job " + std::to_string(running_->job) + ", run " +
                          std::to_string(running_->run_id) + "); try again when it has ended");
    }
  }
  if (worker_.joinable()) worker_.join();  // the last job's thread has finished its work
  RunSessionOptions options;
  options.kind = ToString(request.kind);
  options.command = env_.command_line + " (" + options.kind + " from " + request.origin + ")";
  options.paths = env_.paths;
  options.clock = env_.clock;
  options.filesystem = env_.filesystem;
  options.fanout = env_.fanout;
  options.remote = env_.remote;
  auto session = RunSession::Open(*site->inventory, options);
  if (!session.ok()) return session.status();
  JobInfo info;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    info.job = next_job_++;
    info.run_id = (*session)->run_id();
    info.kind = options.kind;
    info.origin = request.origin;
    info.started_at_ms = env_.clock->NowMs();
    running_ = info;
    cancel_ = std::make_unique<CancelToken>();
  }
  hub_.BeginJob(info.job, info.ToJson());
  worker_ = std::thread([this, site, request, p = std::move(prepared).value(), s = std::move(session).value(),
                         job = info.job]() mutable { Work(site, request, std::move(p), std::move(s), job); });
  return info;
}

void JobRunner::Work(std::shared_ptr<const Site> site, JobRequest request, std::unique_ptr<Prepared> prepared,
                     std::unique_ptr<RunSession> session, int64_t job) {
  std::string status = "ok";
  nlohmann::json summary;
  // The job's barrier: whatever escapes the engine fails this job with a
  // message, and the daemon goes on serving.
  std::string internal_error;
  try {
    summary = request.kind == JobRequest::Kind::kValidate ? RunValidateJob(*site, request, *prepared, *session, status)
                                                          : RunDeployJob(*site, request, *prepared, *session, status);
  } catch (const std::exception& e) {
    internal_error = std::string("internal error: ") + e.what();
  } catch (...) {
    internal_error = "internal error: an exception of unknown type";
  }
  if (!internal_error.empty()) {
    status = "failed";
    summary = {{"error", internal_error}};
    RecordFailedRun(*session, summary);
  }
  session.reset();  // releases the writer lock before anyone hears the job ended
  Finished(job, status, summary);
}

nlohmann::json JobRunner::RunDeployJob(const Site& site, const JobRequest& request, const Prepared& prepared,
                                       RunSession& session, std::string& status) {
  const bool drift_check = request.kind == JobRequest::Kind::kDrift;
  DeploymentInputs inputs{site.inventory.get(), site.catalog.get(), prepared.hosts, &session.state(),
                          session.run_id(), {}};
  inputs.options.check = request.kind != JobRequest::Kind::kDeploy;
  inputs.options.verify = request.verify || drift_check;
  inputs.options.roles = request.roles;
  inputs.options.tags = {request.tags, request.skip_tags};
  inputs.options.batch_size = prepared.batch_size;
  inputs.options.max_fail_percent = request.max_fail_percent;
  DeploymentResult result = RunDeployment(inputs, SessionsOf(session), hub_, *cancel_);
  const int64_t now = env_.clock->NowMs();
  if (result.ending != DeploymentResult::Ending::kCompleted) {
    status = "failed";
    session.Finish({}, RunStatus::kFailed, {{"error", result.error}});
    return {{"error", result.error}};
  }
  if (drift_check) {
    drift_.Record(result.hosts, now);
    const std::map<std::string, HostDrift> book = drift_.Snapshot();
    for (const HostReport& r : result.hosts) {
      if (r.outcome == "ok") (void)session.state().SetHostDrifted(r.host, book.at(r.host).drifted());
    }
  } else if (request.kind == JobRequest::Kind::kPlan) {
    std::lock_guard<std::mutex> lock(mutex_);
    last_plan_ = PlanJson(result.hosts, now);
  } else if (inputs.options.VerifiesEverything()) {
    for (const HostReport& r : result.hosts) {
      if (r.outcome == "ok") drift_.Clear(r.host, now);
    }
  }
  status = result.stopped ? "stopped" : result.converged() ? "ok" : "failed";
  nlohmann::json summary = RunSummaryOf(result, inputs.options.check);
  if (drift_check) summary["drifted"] = drift_.Drifted();
  session.Finish(HostResultsOf(result, *site.inventory),
                 result.stopped ? RunStatus::kInterrupted : result.converged() ? RunStatus::kOk : RunStatus::kFailed,
                 summary);
  return summary;
}

nlohmann::json JobRunner::RunValidateJob(const Site& site, const JobRequest& request, const Prepared& prepared,
                                         RunSession& session, std::string& status) {
  ValidationInputs inputs;
  inputs.inventory = site.inventory.get();
  inputs.selected = prepared.hosts;
  inputs.thresholds = prepared.thresholds;
  inputs.checks = *prepared.checks;
  inputs.deadline = std::chrono::seconds(request.deadline_s);
  inputs.run_on = [&](const std::vector<const Host*>& hosts, const RemoteRunner::HostBody& body) {
    return RunOnHosts(SessionsOf(session), hosts, body);
  };
  ValidationOutcome outcome = RunValidation(inputs);
  std::map<std::string, int> counts = CountOutcomes(outcome.results);
  Status recorded = RecordValidation(session.state(), session.run_id(), outcome);
  nlohmann::json failed = nlohmann::json::array();
  for (const CheckResult& r : outcome.results) {
    if (r.outcome == CheckOutcome::kFail) failed.push_back({{"check", r.check}, {"subject", r.subject}, {"detail", r.detail}});
  }
  nlohmann::json summary = {{"pass", counts["pass"]}, {"fail", counts["fail"]}, {"skip", counts["skip"]}, {"failed", failed}};
  if (!recorded.ok()) summary["error"] = recorded.message();
  status = counts["fail"] > 0 || !recorded.ok() ? "failed" : "ok";
  hub_.Publish({{"event", "validation"}, {"summary", summary}});
  session.Finish(outcome.probe_results, counts["fail"] > 0 ? RunStatus::kFailed : RunStatus::kOk,
                 {{"pass", counts["pass"]}, {"fail", counts["fail"]}, {"skip", counts["skip"]}});
  return summary;
}

void JobRunner::Finished(int64_t job, const std::string& status, const nlohmann::json& summary) {
  hub_.EndJob(summary);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_ || running_->job != job) return;
  running_->status = status;
  running_->summary = summary;
  running_->finished_at_ms = env_.clock->NowMs();
  recent_.push_front(*running_);
  if (recent_.size() > kRecentJobs) recent_.pop_back();
  running_.reset();
}

std::optional<JobInfo> JobRunner::Running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

std::vector<JobInfo> JobRunner::Recent() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {recent_.begin(), recent_.end()};
}

nlohmann::json JobRunner::last_plan() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_plan_;
}

void JobRunner::Cancel(std::chrono::milliseconds grace) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cancel_) cancel_->Cancel(grace);
}

void JobRunner::Join() {
  if (worker_.joinable()) worker_.join();
}

JobRunner::~JobRunner() {
  Cancel(kStopGrace);
  Join();
}

}  // namespace clusterctl
