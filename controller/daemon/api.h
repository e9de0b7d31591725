// Api: the daemon's HTTP routes (docs/api.md, version 1). It maps each
// request to a response from the daemon's views, or hands a job to the
// daemon; it never runs anything long itself (it runs on the I/O thread).
//
// Every route but the liveness probe (/healthz) and the page's HTML, script
// and style (which hold no data) needs `Authorization: Bearer <token>`, from
// loopback too, of the scope the route needs (access.h): a missing or wrong
// token is 401 with the same body either way, before the route is even
// looked at (no hint which paths exist); a token of too small a scope is 403.
// HandleMetricsListener serves the metrics listener: /healthz, and /metrics
// to the metrics token; nothing else.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "controller/daemon/drift.h"
#include "controller/daemon/event_hub.h"
#include "controller/daemon/http_server.h"
#include "controller/daemon/jobs.h"
#include "controller/daemon/metrics.h"
#include "controller/daemon/site.h"
#include "controller/daemon/state_view.h"
#include "controller/daemon/status_document.h"
#include "controller/daemon/token.h"

namespace clusterctl {

struct ApiParts {
  const TokenBook* tokens = nullptr;
  SiteWatcher* site = nullptr;
  StateView* state = nullptr;
  DriftBook* drift = nullptr;
  JobRunner* jobs = nullptr;
  EventHub* events = nullptr;
  RequestCounters* requests = nullptr;
  const Clock* clock = nullptr;
  std::function<DaemonFacts()> daemon_facts;
  std::function<SlurmNodesReading()> slurm;  // the Slurm watch's last reading
  // Starts a job through the daemon (which refreshes the site first).
  std::function<Result<JobInfo>(JobRequest)> start_job;
  // Asks the running job to stop.
  std::function<bool(std::chrono::milliseconds grace)> stop_job;
};

class Api {
 public:
  explicit Api(ApiParts parts) : parts_(std::move(parts)) {}

  HttpReply Handle(const HttpRequest& request);
  HttpReply HandleMetricsListener(const HttpRequest& request);
  // Whether `request` may use the server's reserved connections: one with
  // a read or admin token, or the liveness probe (an admin and a supervisor
  // get through while others hold every ordinary connection).
  bool MayUseReserve(const HttpRequest& request) const;
  // The next status read builds the document anew (a job started or ended).
  void Invalidate();

 private:
  HttpReply Route(const HttpRequest& request, std::string& route);
  HttpReply RouteRead(const HttpRequest& request, std::string& route);
  HttpResponse Jobs();
  HttpResponse Status();
  HttpResponse Metrics();
  HttpResponse Host(const std::string& name);
  HttpResponse Run(const std::string& id);
  HttpReply Events(const HttpRequest& request);
  HttpResponse StartJob(const HttpRequest& request, RunKind kind);
  HttpResponse Stop(const HttpRequest& request);

  ApiParts parts_;
  std::mutex cache_mutex_;
  std::string status_body_;
  std::chrono::steady_clock::time_point status_built_{};
};

HttpResponse JsonResponse(int status, const nlohmann::json& body);

}  // namespace clusterctl
