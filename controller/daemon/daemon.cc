#include "controller/daemon/daemon.h"

#include "common/strings.h"
#include "controller/daemon/job_line.h"
#include "controller/daemon/token.h"

namespace clusterctl {
namespace {

constexpr std::chrono::seconds kBusyRetry{15};

}  // namespace

Daemon::Daemon(DaemonOptions options, const Clock& clock, const FilesystemProbe& filesystem, Logger& log)
    : options_(std::move(options)),
      clock_(clock),
      filesystem_(filesystem),
      log_(log),
      site_(options_.inventory_path),
      state_(options_.paths, filesystem, clock, std::chrono::seconds(1)),
      tokens_(options_.paths.secrets()),
      random_(std::random_device{}()) {
  JobEnvironment env{options_.command_line, options_.paths,  &clock,           &filesystem,
                     options_.fanout,       options_.remote, options_.sessions};
  jobs_ = std::make_unique<JobRunner>(std::move(env), events_, drift_);
  SlurmWatchOptions slurm;
  slurm.interval = options_.slurm_interval;
  slurm.paths = options_.paths;
  slurm.clock = &clock;
  slurm.filesystem = &filesystem;
  slurm.remote = options_.remote;
  slurm.sessions = options_.sessions;
  slurm.log = [this](LogLevel level, const std::string& line) { Log(level, line); };
  if (options_.power.enabled) {
    ipmitool_ = std::make_unique<LocalProcessRunner>(clock);
    power_ = std::make_unique<PowerRemediator>(options_.power, *ipmitool_, clock,
                                               [this](LogLevel level, const std::string& line) { Log(level, line); });
    slurm.after_reading = [this](const Site& site, const SlurmNodesReading& reading, SessionFactory& sessions) {
      power_->TurnWithAlertmanager(site, reading, sessions);
    };
  }
  slurm_ = std::make_unique<SlurmWatch>(std::move(slurm), [this] { return site_.current(); });
}

Result<std::unique_ptr<Daemon>> Daemon::Create(DaemonOptions options, const Clock& clock,
                                               const FilesystemProbe& filesystem, Logger& log) {
  std::unique_ptr<Daemon> daemon(new Daemon(std::move(options), clock, filesystem, log));
  daemon->started_at_ms_ = clock.NowMs();
  if (!daemon->site_.Refresh(clock.NowMs())) {
    return Status::InvalidArgument(daemon->site_.error().empty() ? "cannot load " + daemon->options_.inventory_path
                                                                 : daemon->site_.error());
  }
  CLUSTERCTL_RETURN_IF_ERROR(PrepareStateDirectories(daemon->options_.paths, filesystem));
  CLUSTERCTL_RETURN_IF_ERROR(daemon->tokens_.Reload());
  CLUSTERCTL_RETURN_IF_ERROR(daemon->FindOpenIntents());

  Daemon* self = daemon.get();
  ApiParts parts;
  parts.tokens = &self->tokens_;
  parts.site = &self->site_;
  parts.state = &self->state_;
  parts.drift = &self->drift_;
  parts.jobs = self->jobs_.get();
  parts.events = &self->events_;
  parts.requests = &self->requests_;
  parts.clock = &clock;
  parts.daemon_facts = [self] { return self->Facts(); };
  parts.slurm = [self] { return self->slurm_->Get(); };
  parts.start_job = [self](JobRequest request) { return self->StartJob(std::move(request)); };
  parts.stop_job = [self](std::chrono::milliseconds grace) {
    if (!self->jobs_->Running()) return false;
    self->jobs_->Cancel(grace);
    return true;
  };
  daemon->api_ = std::make_unique<Api>(std::move(parts));

  HttpServerOptions http;
  http.address = daemon->options_.address;
  http.port = daemon->options_.port;
  http.log = [self](LogLevel level, const std::string& line) { self->Log(level, "http: " + line); };
  http.may_use_reserve = [self](const HttpRequest& request) { return self->api_->MayUseReserve(request); };
  auto server = HttpServer::Listen(http, [self](const HttpRequest& request) {
    HttpReply reply = self->api_->Handle(request);
    // The path only: never a header (the token) or the query.
    if (self->log_.Enabled(LogLevel::kDebug)) {
      const auto* response = std::get_if<HttpResponse>(&reply);
      self->Log(LogLevel::kDebug, "http: " + BoundedText(request.method, 16) + " " + BoundedText(request.path, 200) +
                                      " from " + request.peer + ": " +
                                      (response ? std::to_string(response->status) : "event stream"));
    }
    return reply;
  });
  if (!server.ok()) return server.status();
  daemon->server_ = std::move(server).value();
  CLUSTERCTL_RETURN_IF_ERROR(daemon->ListenForMetrics());
  return daemon;
}

// The metrics listener: its own server (its own connection limits), no reserve.
Status Daemon::ListenForMetrics() {
  if (options_.metrics_port < 0) return Status::Ok();
  HttpServerOptions http;
  http.address = options_.metrics_address;
  http.port = options_.metrics_port;
  http.max_connections = 32;
  http.max_connections_per_address = 8;
  http.reserved_connections = 0;
  http.log = [this](LogLevel level, const std::string& line) { Log(level, "metrics listener: " + line); };
  auto server = HttpServer::Listen(http, [this](const HttpRequest& request) { return api_->HandleMetricsListener(request); });
  if (!server.ok()) return server.status();
  metrics_server_ = std::move(server).value();
  return Status::Ok();
}

// A rotated token takes effect here; a token file gone bad (wrong mode or
// owner) keeps the tokens in service and is said once.
void Daemon::ReloadTokens() {
  const Status reloaded = tokens_.Reload();
  if (reloaded.ok() || reloaded.message() == reported_token_error_) {
    if (reloaded.ok()) reported_token_error_.clear();
    return;
  }
  Log(LogLevel::kError, "cannot re-read the API tokens (the ones in service stay): " + reloaded.message());
  reported_token_error_ = reloaded.message();
}

Daemon::~Daemon() { Shutdown(std::chrono::seconds(30)); }

// Hosts of the inventory with open intents: a run ended (killed, or the
// host went away) owing them a restart or a reboot.
Status Daemon::FindOpenIntents() {
  auto store = StateStore::OpenForReading(options_.paths, filesystem_);
  if (!store.ok()) return store.status().code() == Status::Code::kNotFound ? Status::Ok() : store.status();
  auto intents = (*store)->LoadOpenIntents();
  if (!intents.ok()) return intents.status();
  const Inventory& inventory = *site_.current()->inventory;
  for (const Intent& intent : *intents) {
    if (inventory.FindHost(intent.host)) resume_hosts_.insert(intent.host);
  }
  return Status::Ok();
}

void Daemon::Start() {
  server_->Start();
  if (metrics_server_) metrics_server_->Start();
  slurm_->Start();
  ScheduleNextDrift(/*first=*/true);
  next_inventory_poll_ = clock_.Monotonic() + options_.inventory_poll;
  Log(LogLevel::kInfo, "serving " + options_.inventory_path + " (" + std::to_string(host_count()) + " hosts) on http://" +
      options_.address + ":" + std::to_string(port()) + "/; state " + options_.paths.dir + "; drift check every " +
      std::to_string(options_.verify_interval.count()) + " s" + (options_.remediate ? ", remediation on" : "") +
      (options_.power.enabled ? ", power remediation on (at most " + std::to_string(options_.power.max_per_hour) +
                                    " power cycles an hour)"
                              : "") +
      "; Slurm's nodes read every " + std::to_string(options_.slurm_interval.count()) + " s");
  // Where the tokens are, never a token: the page asks for one (#token=...).
  Log(LogLevel::kInfo, "the API tokens (the page takes the read or admin one, as http://" + options_.address + ":" +
      std::to_string(port()) + "/#token=TOKEN) are in " + options_.paths.secrets() + "/: " + kDaemonTokenSecret +
      " (admin), " + kDaemonReadTokenSecret + " (read), " + kDaemonMetricsTokenSecret + " (metrics)");
  if (metrics_server_) {
    Log(LogLevel::kInfo, "metrics listener on http://" + options_.metrics_address + ":" +
        std::to_string(metrics_port()) + "/metrics (the metrics token only)");
  }
  if (!resume_hosts_.empty()) {
    Log(LogLevel::kInfo, "open intents on " + BoundedHostList({resume_hosts_.begin(), resume_hosts_.end()}, 200) +
        ": a deploy of those hosts resumes them");
  }
}

size_t Daemon::host_count() const { return site_.current()->inventory->hosts.size(); }

void Daemon::ScheduleNextDrift(bool first) {
  const auto now = clock_.Monotonic();
  std::chrono::milliseconds delay = options_.verify_interval;
  if (first) {
    delay = std::min<std::chrono::milliseconds>(options_.first_check_delay, options_.verify_interval);
  } else {
    std::uniform_real_distribution<double> splay(0.0, 0.1);
    delay -= std::chrono::milliseconds(static_cast<int64_t>(splay(random_) * static_cast<double>(delay.count())));
  }
  next_drift_ = now + delay;
  next_drift_ms_ = clock_.NowMs() + delay.count();
}

Result<JobInfo> Daemon::StartJob(JobRequest request) {
  if (stopping_) return Status::Unavailable("the daemon is stopping");
  RefreshSite();
  if (request.origin == "api" && !site_.error().empty()) {
    return Status::FailedPrecondition("the inventory file has problems (the last good one is in service); fix it "
                                      "first: " + site_.error());
  }
  auto started = jobs_->Start(site_.current(), request);
  if (started.ok()) {
    Log(LogLevel::kInfo, "job " + std::to_string(started->job) + ": " + ToString(started->kind) + " started (from " +
                             started->origin + ", run " + std::to_string(started->run_id) +
                             (request.run.limit.empty() ? "" : ", hosts " + BoundedText(request.run.limit, 200)) + ")");
    api_->Invalidate();
  }
  return started;
}

// A job the daemon owes itself; false when it could not start now (it is
// tried again on a later tick).
bool Daemon::StartScheduled(JobRequest request) {
  auto started = StartJob(std::move(request));
  if (started.ok()) return true;
  Log(LogLevel::kWarning, "cannot start the scheduled job now: " + started.status().message());
  retry_after_ = clock_.Monotonic() + kBusyRetry;
  return false;
}

void Daemon::NoticeFinishedJobs() {
  std::vector<JobInfo> recent = jobs_->Recent();
  if (recent.empty() || recent.front().job == last_seen_job_) return;
  for (auto it = recent.rbegin(); it != recent.rend(); ++it) {
    if (it->job <= last_seen_job_) continue;
    Log(JobEndLevel(*it), JobEndLine(*it));
    if (it->kind == RunKind::kDrift && it->status == JobStatus::kOk && options_.remediate) remediate_hosts_ = drift_.Drifted();
  }
  last_seen_job_ = recent.front().job;
  api_->Invalidate();
}

void Daemon::PollInventory() {
  const auto now = clock_.Monotonic();
  if (!reload_requested_.exchange(false) && now < next_inventory_poll_) return;
  next_inventory_poll_ = now + options_.inventory_poll;
  RefreshSite();
  ReloadTokens();
}

// Every look at the file goes through here (the poll, SIGHUP, and each job
// start), so whoever notices a change first schedules its plan.
void Daemon::RefreshSite() {
  std::lock_guard<std::mutex> lock(refresh_mutex_);
  if (site_.Refresh(clock_.NowMs())) {
    Log(LogLevel::kInfo, "inventory changed: now " + std::to_string(host_count()) + " hosts; " +
        (options_.remediate ? "deploying it" : "planning it (deploy on request)"));
    plan_pending_ = true;
    reported_inventory_error_.clear();
    api_->Invalidate();
  }
  const std::string error = site_.error();
  if (!error.empty() && error != reported_inventory_error_) {
    Log(LogLevel::kError, "the inventory file has problems; the last good one stays in service:\n" + error);
    reported_inventory_error_ = error;
    api_->Invalidate();
  }
}

void Daemon::Tick() {
  try {
    TickOnce();
  } catch (const std::exception& e) {
    Log(LogLevel::kError, std::string("internal error in the serve loop (serving on): ") + e.what());
  } catch (...) {
    Log(LogLevel::kError, "internal error in the serve loop (serving on): an exception of unknown type");
  }
}

void Daemon::TickOnce() {
  if (stopping_) return;
  NoticeFinishedJobs();
  PollInventory();
  const auto now = clock_.Monotonic();
  if (jobs_->Running() || now < retry_after_) return;
  JobRequest request;
  request.run.max_fail_percent = options_.max_fail_percent;
  if (!resume_hosts_.empty()) {
    request.origin = "resume";
    request.run.limit = Join({resume_hosts_.begin(), resume_hosts_.end()}, ",");
    if (StartScheduled(request)) resume_hosts_.clear();
  } else if (plan_pending_) {
    request.run.kind = options_.remediate ? RunKind::kDeploy : RunKind::kPlan;
    request.origin = "inventory";
    if (StartScheduled(request)) plan_pending_ = false;
  } else if (!remediate_hosts_.empty()) {
    request.origin = "remediate";
    request.run.verify = true;
    request.run.limit = Join(remediate_hosts_, ",");
    if (StartScheduled(request)) remediate_hosts_.clear();
  } else if (now >= next_drift_) {
    request.run.kind = RunKind::kDrift;
    request.origin = "drift";
    request.run.batch = options_.verify_batch;
    if (StartScheduled(request)) ScheduleNextDrift(/*first=*/false);
  }
}

void Daemon::Shutdown(std::chrono::milliseconds grace) {
  if (!server_) return;
  if (!stopping_) {
    stopping_ = true;
    slurm_->Stop();
    if (auto running = jobs_->Running()) {
      Log(LogLevel::kInfo, "stopping: job " + std::to_string(running->job) + " (" + ToString(running->kind) + ") gets " +
          std::to_string(grace.count() / 1000) + " s to finish its steps in flight");
    }
    jobs_->Cancel(grace);
    jobs_->Join();
    NoticeFinishedJobs();
  }
  if (metrics_server_) metrics_server_->Stop();
  server_->Stop();
}

DaemonFacts Daemon::Facts() const {
  DaemonFacts facts;
  facts.inventory_path = options_.inventory_path;
  facts.inventory_error = site_.error();
  facts.started_at_ms = started_at_ms_;
  facts.verify_interval_s = options_.verify_interval.count();
  facts.next_drift_check_ms = next_drift_ms_;
  facts.remediate = options_.remediate;
  return facts;
}

void Daemon::Log(LogLevel level, const std::string& line) { log_.Log(level, "clusterctl serve: " + line); }

}  // namespace clusterctl
