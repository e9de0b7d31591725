#include "controller/daemon/jobs.h"

#include "controller/run/run_pipeline.h"

namespace clusterctl {

const char* ToString(JobStatus status) {
  switch (status) {
    case JobStatus::kRunning: return "running";
    case JobStatus::kOk: return "ok";
    case JobStatus::kFailed: return "failed";
    case JobStatus::kStopped: return "stopped";
  }
  return "?";
}
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
      if (s.status != StepStatus::kWouldChange) continue;
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

// A problem of a request as the API words it: the body's field, then what is wrong.
std::string ProblemText(const RunProblem& problem) {
  using Field = RunProblem::Field;
  static const std::map<Field, const char*> kFields = {
      {Field::kLimit, "limit"},       {Field::kRoles, "roles"},   {Field::kTags, "tags"},
      {Field::kSkipTags, "skip_tags"}, {Field::kBatch, "batch"},   {Field::kMaxFail, "max_fail_percent"},
      {Field::kChecks, "checks"},     {Field::kCommand, "command"}};
  const std::string field = kFields.at(problem.field);
  return field + ": " + problem.message;
}

}  // namespace

nlohmann::json JobInfo::ToJson() const {
  return {{"job", job},
          {"run", run_id},
          {"kind", ToString(kind)},
          {"origin", origin},
          {"started_at", started_at_ms},
          {"finished_at", finished_at_ms ? nlohmann::json(finished_at_ms) : nlohmann::json(nullptr)},
          {"status", ToString(status)},
          {"summary", summary}};
}

Result<JobInfo> JobRunner::Start(std::shared_ptr<const Site> site, JobRequest request) {
  std::lock_guard<std::mutex> one_start(start_mutex_);
  auto prepared = PrepareRun(request.run, *site->inventory, site->catalog.get());
  if (auto* problems = std::get_if<std::vector<RunProblem>>(&prepared)) {
    return Status::InvalidArgument(ProblemText(problems->front()));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_) {
      return Status::Busy(std::string("a ") + ToString(running_->kind) + " runs (job " + std::to_string(running_->job) +
                          ", run " + std::to_string(running_->run_id) + "); try again when it has ended");
    }
  }
  if (worker_.joinable()) worker_.join();  // the last job's thread has finished its work
  RunSessionOptions options;
  options.kind = request.run.kind;
  options.command = env_.command_line + " (" + ToString(options.kind) + " from " + request.origin + ")";
  options.paths = env_.paths;
  options.clock = env_.clock;
  options.filesystem = env_.filesystem;
  options.fanout = env_.fanout;
  options.remote = env_.remote;
  options.sessions = env_.sessions;
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
  worker_ = std::thread([this, site, request, p = std::get<PreparedRun>(std::move(prepared)),
                         s = std::move(session).value(), job = info.job]() mutable {
    Work(site, request, std::move(p), std::move(s), job);
  });
  return info;
}

// `site` is held so the prepared run's inventory and catalog outlive the job.
void JobRunner::Work(std::shared_ptr<const Site> site, JobRequest request, PreparedRun prepared,
                     std::unique_ptr<RunSession> session, int64_t job) {
  (void)site;
  JobStatus status = JobStatus::kOk;
  nlohmann::json summary;
  // The job's barrier: whatever escapes the engine fails this job with a
  // message, and the daemon goes on serving.
  std::string internal_error;
  try {
    summary = request.run.kind == RunKind::kValidate ? RunValidateJob(prepared, *session, status)
                                                     : RunDeployJob(prepared, *session, status);
  } catch (const std::exception& e) {
    internal_error = std::string("internal error: ") + e.what();
  } catch (...) {
    internal_error = "internal error: an exception of unknown type";
  }
  if (!internal_error.empty()) {
    status = JobStatus::kFailed;
    summary = {{"error", internal_error}};
    RecordFailedRun(*session, summary);
  }
  session.reset();  // releases the writer lock before anyone hears the job ended
  Finished(job, status, summary);
}

nlohmann::json JobRunner::RunDeployJob(const PreparedRun& run, RunSession& session, JobStatus& status) {
  DeploymentResult result = Deploy(run, session, hub_, *cancel_);
  const int64_t now = env_.clock->NowMs();
  if (result.ending != DeploymentResult::Ending::kCompleted) {
    status = JobStatus::kFailed;
    return CompleteDeployment(session, run, result).summary;
  }
  nlohmann::json extra = nlohmann::json::object();
  if (run.kind() == RunKind::kDrift) {
    drift_.Record(result.hosts, now);  // the state's marks: CompleteDeployment (run/drift_marks.h)
    extra["drifted"] = drift_.Drifted();
  } else if (run.kind() == RunKind::kPlan) {
    std::lock_guard<std::mutex> lock(mutex_);
    last_plan_ = PlanJson(result.hosts, now);
  } else if (run.Deployment().VerifiesEverything()) {
    for (const HostReport& r : result.hosts) {
      if (r.outcome == HostOutcome::kOk) drift_.Clear(r.host, now);
    }
  }
  status = result.stopped ? JobStatus::kStopped : result.converged() ? JobStatus::kOk : JobStatus::kFailed;
  return CompleteDeployment(session, run, result, extra).summary;
}

nlohmann::json JobRunner::RunValidateJob(const PreparedRun& run, RunSession& session, JobStatus& status) {
  ValidationOutcome outcome = Validate(run, session.sessions(), session.clock());
  CompletedRun completed = CompleteValidation(session, outcome);
  nlohmann::json failed = nlohmann::json::array();
  for (const CheckResult& r : outcome.results) {
    if (r.outcome == CheckOutcome::kFail) failed.push_back({{"check", r.check}, {"subject", r.subject}, {"detail", r.detail}});
  }
  nlohmann::json summary = completed.summary;
  summary["failed"] = failed;
  if (!completed.state_errors.empty()) summary["error"] = completed.state_errors.front();
  // The job says what its run record says (a host taking part that did not
  // answer fails the run, as on the command line), or failed when the state
  // could not be written.
  status = completed.status == RunStatus::kOk && completed.state_errors.empty() ? JobStatus::kOk : JobStatus::kFailed;
  hub_.Publish({{"event", "validation"}, {"summary", summary}});
  return summary;
}

void JobRunner::Finished(int64_t job, JobStatus status, const nlohmann::json& summary) {
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
