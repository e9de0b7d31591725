// JobRunner: the daemon's deploys, plans, validations and drift checks, one
// at a time, each on its own worker thread, each through the same engine
// calls as the command line: a RunRequest prepared and completed by the run
// pipeline (run/run_request.h, run/run_pipeline.h) over a RunSession.
//
// The state's writer lock is taken when a job starts and released when it
// ends, so `clusterctl deploy` from a shell and the daemon share the state:
// whoever comes second is told who holds it (the HTTP API answers 409).
// Thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cancel_token.h"
#include "controller/daemon/drift.h"
#include "controller/daemon/event_hub.h"
#include "controller/daemon/site.h"
#include "controller/run/run_request.h"
#include "controller/run/run_session.h"

namespace clusterctl {

// A job: a run request (deploy, plan, validate or drift; the API's body or
// the daemon's own schedule) and where it came from.
struct JobRequest {
  RunRequest run;
  std::string origin = "api";  // api | drift | remediate | inventory | resume
};

// Where a job stands; its word (ToString) is what the API and the log line say.
enum class JobStatus { kRunning, kOk, kFailed, kStopped };
const char* ToString(JobStatus status);  // "running" | "ok" | "failed" | "stopped"

struct JobInfo {
  int64_t job = 0;
  int64_t run_id = 0;
  RunKind kind = RunKind::kDeploy;
  std::string origin;
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;  // 0 while running
  JobStatus status = JobStatus::kRunning;
  nlohmann::json summary;
  nlohmann::json ToJson() const;
};

struct JobEnvironment {
  std::string command_line;  // recorded with each run ("clusterctl serve ...")
  StatePaths paths;
  const Clock* clock = nullptr;
  const FilesystemProbe* filesystem = nullptr;
  FanoutOptions fanout;
  RemoteOptions remote;  // the sudo password, if the daemon was given one
  SessionFactory* sessions = nullptr;  // tests: a fleet of fake nodes in place of SSH
};

class JobRunner {
 public:
  JobRunner(JobEnvironment env, EventHub& hub, DriftBook& drift) : env_(std::move(env)), hub_(hub), drift_(drift) {}
  ~JobRunner();  // stops the running job (30 s grace) and waits for it

  // Starts the job, unless: the request is invalid (InvalidArgument, naming
  // the field), a job runs already or another process holds the state
  // (Busy, naming the job or the holder).
  Result<JobInfo> Start(std::shared_ptr<const Site> site, JobRequest request);

  std::optional<JobInfo> Running() const;
  std::vector<JobInfo> Recent() const;  // the last jobs, newest first
  nlohmann::json last_plan() const;     // the last plan: steps that would change, per host

  // Asks the running job to stop: its steps in flight get `grace`.
  void Cancel(std::chrono::milliseconds grace);
  void Join();

 private:
  void Work(std::shared_ptr<const Site> site, JobRequest request, PreparedRun prepared,
            std::unique_ptr<RunSession> session, int64_t job);
  nlohmann::json RunDeployJob(const PreparedRun& run, RunSession& session, JobStatus& status);
  nlohmann::json RunValidateJob(const PreparedRun& run, RunSession& session, JobStatus& status);
  void Finished(int64_t job, JobStatus status, const nlohmann::json& summary);

  JobEnvironment env_;
  EventHub& hub_;
  DriftBook& drift_;
  std::mutex start_mutex_;  // one Start at a time (the HTTP thread and the daemon's timers)
  mutable std::mutex mutex_;
  std::thread worker_;
  std::unique_ptr<CancelToken> cancel_;
  std::optional<JobInfo> running_;
  std::deque<JobInfo> recent_;
  nlohmann::json last_plan_ = nullptr;
  int64_t next_job_ = 1;
};

}  // namespace clusterctl
