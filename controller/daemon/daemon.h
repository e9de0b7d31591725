// Daemon: `clusterctl serve`. It keeps the site (inventory + roles) in
// service, serves the API and the page, and schedules its own jobs:
//
//  - at start, a deploy of the hosts that have open intents (a run killed
//    with owed restarts or reboots: they are honoured exactly once);
//  - every `verify_interval` (minus up to 10% splay, so a check comes at
//    most one interval after the last), a drift check: deploy --verify in
//    check mode over every host, `verify_batch` hosts at a time;
//  - when the inventory file changes (polled, or SIGHUP), a plan of what a
//    deploy would now change; with `remediate`, a deploy instead;
//  - with `remediate`, a converging deploy (--verify) of every host the last
//    drift check found drifted, with the deploy's failure budget.
// A job due while another runs (or while a shell's deploy holds the state)
// waits for the next tick. Tick() is called by the serve loop every ~500 ms.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "common/log.h"
#include "controller/daemon/api.h"
#include "controller/daemon/power_remediator.h"
#include "controller/daemon/slurm_watch.h"

namespace clusterctl {

struct DaemonOptions {
  std::string inventory_path;
  std::string address = "127.0.0.1";
  int port = 9420;
  // The metrics listener (`serve --metrics-listen`): /metrics to the metrics
  // token, and /healthz, nothing else. metrics_port -1: none; 0: any free
  // port (tests).
  std::string metrics_address;
  int metrics_port = -1;
  std::chrono::seconds verify_interval{3600};
  std::string verify_batch = "50";
  bool remediate = false;
  // Power remediation (power_remediator.h): off unless --power-remediate.
  PowerRemediationPolicy power;
  int max_fail_percent = 100;
  std::chrono::milliseconds inventory_poll{2000};
  std::chrono::seconds first_check_delay{10};
  std::chrono::seconds slurm_interval{60};
  StatePaths paths;
  std::string command_line;
  RemoteOptions remote;
  FanoutOptions fanout;
  SessionFactory* sessions = nullptr;  // tests: a fleet of fake nodes in place of SSH
};

class Daemon {
 public:
  // Loads the site (a bad inventory at start is an error), the token, and
  // binds the address. Nothing runs until Start().
  static Result<std::unique_ptr<Daemon>> Create(DaemonOptions options, const Clock& clock,
                                                const FilesystemProbe& filesystem, Logger& log);
  ~Daemon();

  void Start();
  // One turn of the serve loop. Its barrier: an exception is logged and
  // the daemon goes on serving (the next tick tries again).
  void Tick();
  void ReloadInventory() { reload_requested_ = true; }
  // Stops taking work; the running job's steps get `grace`, then it ends
  // with its intents left for the next run. Returns when it has ended.
  void Shutdown(std::chrono::milliseconds grace);

  int port() const { return server_->port(); }
  int metrics_port() const { return metrics_server_ ? metrics_server_->port() : -1; }
  size_t host_count() const;

 private:
  Daemon(DaemonOptions options, const Clock& clock, const FilesystemProbe& filesystem, Logger& log);
  void TickOnce();
  Result<JobInfo> StartJob(JobRequest request);
  bool StartScheduled(JobRequest request);
  void NoticeFinishedJobs();
  void PollInventory();
  void ReloadTokens();
  Status ListenForMetrics();
  void RefreshSite();
  void ScheduleNextDrift(bool first);
  Status FindOpenIntents();
  DaemonFacts Facts() const;
  // Every line starts "clusterctl serve: ".
  void Log(LogLevel level, const std::string& line);

  DaemonOptions options_;
  const Clock& clock_;
  const FilesystemProbe& filesystem_;
  Logger& log_;
  SiteWatcher site_;
  StateView state_;
  EventHub events_;
  DriftBook drift_;
  RequestCounters requests_;
  std::unique_ptr<JobRunner> jobs_;
  std::unique_ptr<LocalProcessRunner> ipmitool_;   // with power remediation
  std::unique_ptr<PowerRemediator> power_;         // with power remediation
  std::unique_ptr<SlurmWatch> slurm_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<HttpServer> metrics_server_;
  TokenBook tokens_;
  std::string reported_token_error_;
  std::mt19937_64 random_;

  int64_t started_at_ms_ = 0;
  std::atomic<bool> reload_requested_{false};
  std::atomic<bool> stopping_{false};
  std::chrono::steady_clock::time_point next_inventory_poll_{};
  std::chrono::steady_clock::time_point next_drift_{};
  std::chrono::steady_clock::time_point retry_after_{};
  std::atomic<int64_t> next_drift_ms_{0};
  std::string reported_inventory_error_;
  int64_t last_seen_job_ = 0;
  std::set<std::string> resume_hosts_;
  std::atomic<bool> plan_pending_{false};  // set from the HTTP thread too (a job start refreshes)
  std::mutex refresh_mutex_;
  std::vector<std::string> remediate_hosts_;
};

}  // namespace clusterctl
