#include "controller/daemon/api.h"

#include <cctype>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/daemon/access.h"
#include "controller/daemon/page.h"
#include "controller/daemon/request_body.h"
#include "controller/daemon/token.h"

namespace clusterctl {
namespace {

constexpr std::chrono::seconds kStatusMaxAge{1};
constexpr std::string_view kHostsPrefix = "/api/v1/hosts/";
constexpr std::string_view kRunsPrefix = "/api/v1/runs/";

HttpResponse ErrorResponse(int status, const std::string& message) {
  return JsonResponse(status, {{"error", message}});
}

HttpResponse MethodNotAllowed(const char* allowed) {
  HttpResponse response = ErrorResponse(405, std::string("use ") + allowed);
  response.headers.emplace_back("Allow", allowed);
  return response;
}

std::optional<int64_t> ParseId(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}


// The body fields of each job kind, read into a JobRequest.
std::variant<JobRequest, BodyError> ReadJobRequest(const HttpRequest& request, RunKind kind) {
  std::set<std::string> fields = {"limit"};
  if (kind == RunKind::kDeploy || kind == RunKind::kPlan) {
    fields.insert({"roles", "tags", "skip_tags", "verify", "batch", "max_fail_percent"});
  }
  if (kind == RunKind::kValidate) fields.insert({"checks", "deadline_s"});
  auto parsed = RequestBody::Parse(request, fields);
  if (auto* error = std::get_if<BodyError>(&parsed)) return *error;
  RequestBody& body = std::get<RequestBody>(parsed);
  JobRequest job;
  RunRequest& run = job.run;
  run.kind = kind;
  body.String("limit", run.limit);
  body.StringList("roles", run.roles);
  body.StringList("tags", run.tags.tags);
  body.StringList("skip_tags", run.tags.skip_tags);
  body.Bool("verify", run.verify);
  body.String("batch", run.batch);
  body.Int("max_fail_percent", 0, 100, run.max_fail_percent);
  body.StringList("checks", run.checks);
  int deadline_s = static_cast<int>(run.deadline.count());
  body.Int("deadline_s", 10, 86400, deadline_s);
  run.deadline = std::chrono::seconds(deadline_s);
  if (body.error()) return *body.error();
  return job;
}

// The status page and its script and style: code, no data, no token.
std::optional<HttpResponse> PageResource(const std::string& path) {
  if (path == "/" || path == "/index.html") {
    return HttpResponse{200, "text/html; charset=utf-8", kStatusPageHtml,
                        {{"Content-Security-Policy", kStatusPagePolicy}}};
  }
  if (path == "/app.js") return HttpResponse{200, "text/javascript; charset=utf-8", kStatusPageScript, {}};
  if (path == "/app.css") return HttpResponse{200, "text/css; charset=utf-8", kStatusPageStyle, {}};
  return std::nullopt;
}

}  // namespace

HttpResponse JsonResponse(int status, const nlohmann::json& body) {
  return {status, "application/json", JsonText(body) + "\n", {}};
}

void Api::Invalidate() {
  parts_.state->Invalidate();
  std::lock_guard<std::mutex> lock(cache_mutex_);
  status_body_.clear();
}

bool Api::MayUseReserve(const HttpRequest& request) const {
  if (request.path == "/healthz") return true;
  const std::optional<TokenScope> scope = BearerScope(request.authorization, parts_.tokens->Get());
  return scope && *scope >= TokenScope::kRead;
}

HttpReply Api::Handle(const HttpRequest& request) {
  std::string route = "other";
  HttpReply reply = Route(request, route);
  const int code = std::holds_alternative<HttpResponse>(reply) ? std::get<HttpResponse>(reply).status : 200;
  parts_.requests->Count(route, code);
  return reply;
}

HttpReply Api::Route(const HttpRequest& request, std::string& route) {
  const std::string& path = request.path;
  const bool get = request.method == "GET" || request.method == "HEAD";
  if (path == "/healthz") {
    route = path;
    return JsonResponse(200, {{"ok", true}});
  }
  if (auto page = PageResource(path)) {
    route = path == "/index.html" ? "/" : path;
    if (!get) return MethodNotAllowed("GET");
    return *page;
  }
  if (auto refused = Refusal(request, parts_.tokens->Get(), ScopeNeeded(request))) {
    route = refused->status == 401 ? "unauthorized" : "forbidden";
    return *refused;
  }
  static const std::map<std::string, RunKind> kJobs = {{"/api/v1/deploy", RunKind::kDeploy},
                                                       {"/api/v1/plan", RunKind::kPlan},
                                                       {"/api/v1/validate", RunKind::kValidate},
                                                       {"/api/v1/drift-check", RunKind::kDrift}};
  if (auto job = kJobs.find(path); job != kJobs.end()) {
    route = path;
    if (request.method == "POST") return StartJob(request, job->second);
    if (path == "/api/v1/plan" && get) return JsonResponse(200, {{"plan", parts_.jobs->last_plan()}});
    return MethodNotAllowed("POST");
  }
  if (path == "/api/v1/stop") {
    route = path;
    return request.method == "POST" ? Stop(request) : MethodNotAllowed("POST");
  }
  if (!get) {
    route = "other";
    return ErrorResponse(404, "no such endpoint");
  }
  return RouteRead(request, route);
}

HttpReply Api::HandleMetricsListener(const HttpRequest& request) {
  std::string route = "metrics-listener";
  HttpReply reply = [&]() -> HttpReply {
    if (request.path == "/healthz") return JsonResponse(200, {{"ok", true}});
    if (auto refused = MetricsListenerRefusal(request, parts_.tokens->Get())) return *refused;
    if (request.path != "/metrics") return ErrorResponse(404, "this listener serves /metrics and /healthz only");
    if (request.method != "GET" && request.method != "HEAD") return MethodNotAllowed("GET");
    return Metrics();
  }();
  parts_.requests->Count(route, std::get<HttpResponse>(reply).status);
  return reply;
}

// The GET routes behind the token.
HttpReply Api::RouteRead(const HttpRequest& request, std::string& route) {
  const std::string& path = request.path;
  route = path;
  if (path == "/metrics") return Metrics();
  if (path == "/api/v1/status") return Status();
  if (path == "/api/v1/events") return Events(request);
  if (path == "/api/v1/jobs") return Jobs();
  if (path == "/api/v1/runs") {
    nlohmann::json runs = nlohmann::json::array();
    for (const RunRecord& r : parts_.state->Get()->runs) runs.push_back(RunToJson(r));
    return JsonResponse(200, {{"runs", runs}});
  }
  if (StartsWith(path, kHostsPrefix)) {
    route = "/api/v1/hosts/{name}";
    return Host(path.substr(kHostsPrefix.size()));
  }
  if (StartsWith(path, kRunsPrefix)) {
    route = "/api/v1/runs/{id}";
    return Run(path.substr(kRunsPrefix.size()));
  }
  route = "other";
  return ErrorResponse(404, "no such endpoint");
}

HttpResponse Api::Jobs() {
  nlohmann::json recent = nlohmann::json::array();
  for (const JobInfo& j : parts_.jobs->Recent()) recent.push_back(j.ToJson());
  const auto running = parts_.jobs->Running();
  return JsonResponse(200, {{"running", running ? running->ToJson() : nlohmann::json(nullptr)}, {"recent", recent}});
}

HttpResponse Api::Status() {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  const auto now = parts_.clock->Monotonic();
  if (status_body_.empty() || now - status_built_ >= kStatusMaxAge) {
    std::shared_ptr<const Site> site = parts_.site->current();
    status_body_ = JsonText(BuildStatusDocument(*site, *parts_.state->Get(), *parts_.drift, *parts_.jobs,
                                                parts_.daemon_facts(), parts_.slurm())) + "\n";
    status_built_ = now;
  }
  return {200, "application/json", status_body_, {}};
}

HttpResponse Api::Metrics() {
  std::shared_ptr<const Site> site = parts_.site->current();
  std::string text = RenderMetrics(*site, *parts_.state->Get(), *parts_.drift, *parts_.jobs, parts_.daemon_facts(),
                                   *parts_.requests, parts_.slurm());
  return {200, "text/plain; version=0.0.4; charset=utf-8", std::move(text), {}};
}

HttpResponse Api::Host(const std::string& name) {
  std::shared_ptr<const Site> site = parts_.site->current();
  std::shared_ptr<const StateSnapshot> state = parts_.state->Get();
  for (const HostView& view : BuildHostViews(*site->inventory, *state, parts_.drift->Snapshot())) {
    if (view.row.name == name) return JsonResponse(200, HostToJson(view));
  }
  return ErrorResponse(404, "no such host");
}

HttpResponse Api::Run(const std::string& id) {
  std::optional<int64_t> run = ParseId(id);
  if (!run) return ErrorResponse(404, "no such run");
  auto detail = parts_.state->RunDetail(*run);
  if (!detail.ok()) {
    return ErrorResponse(detail.status().code() == Status::Code::kNotFound ? 404 : 500, detail.status().message());
  }
  return JsonResponse(200, *detail);
}

HttpReply Api::Events(const HttpRequest& request) {
  int64_t job = parts_.events->job();
  if (auto asked = request.query.find("job"); asked != request.query.end()) {
    std::optional<int64_t> id = ParseId(asked->second);
    if (!id) return ErrorResponse(400, "job: a job number");
    if (!parts_.events->Keeps(*id)) return ErrorResponse(404, "the events of the last few jobs are kept; not job " + asked->second);
    job = *id;
  }
  if (job == 0) return ErrorResponse(404, "no job has run yet");
  auto cursor = std::make_shared<uint64_t>(0);
  if (!request.last_event_id.empty()) {  // a client resuming: the events after the one it saw
    std::optional<int64_t> seen = ParseId(request.last_event_id);
    if (!seen) return ErrorResponse(400, "Last-Event-ID: an event id");
    *cursor = static_cast<uint64_t>(*seen);
  }
  EventHub* hub = parts_.events;
  return EventSource([hub, job, cursor](size_t max_bytes) { return hub->Since(job, *cursor, max_bytes); });
}

HttpResponse Api::StartJob(const HttpRequest& request, RunKind kind) {
  auto read = ReadJobRequest(request, kind);
  if (auto* error = std::get_if<BodyError>(&read)) return ErrorResponse(error->status, error->message);
  auto started = parts_.start_job(std::get<JobRequest>(std::move(read)));
  if (!started.ok()) {
    const Status::Code code = started.status().code();
    const int status = code == Status::Code::kBusy               ? 409
                       : code == Status::Code::kInvalidArgument   ? 400
                       : code == Status::Code::kFailedPrecondition ? 409
                                                                   : 500;
    return ErrorResponse(status, started.status().message());
  }
  Invalidate();
  nlohmann::json body = started->ToJson();
  body["events"] = "/api/v1/events?job=" + std::to_string(started->job);
  return JsonResponse(202, body);
}

HttpResponse Api::Stop(const HttpRequest& request) {
  auto parsed = RequestBody::Parse(request, {"grace_s"});
  if (auto* error = std::get_if<BodyError>(&parsed)) return ErrorResponse(error->status, error->message);
  int grace_s = 30;
  RequestBody& body = std::get<RequestBody>(parsed);
  body.Int("grace_s", 0, 3600, grace_s);
  if (body.error()) return ErrorResponse(body.error()->status, body.error()->message);
  if (!parts_.stop_job(std::chrono::seconds(grace_s))) return ErrorResponse(409, "no job is running");
  return JsonResponse(202, {{"stopping", true}, {"grace_s", grace_s}});
}

}  // namespace clusterctl
