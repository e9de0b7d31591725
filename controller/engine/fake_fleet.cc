#include "controller/engine/fake_fleet.h"

#include "common/clock.h"
#include "common/json_text.h"
#include "controller/remote/remote_runner.h"
#include "controller/remote/sleep.h"

namespace clusterctl::testing {

using namespace agent_protocol;

namespace {

// A fake node answers in the machine's own time, as a real agent's transport waits.
const SystemClock kMachineClock;

// The in-memory transport: the request is answered by its node, and the
// reply crosses the real framing (encode, then decode as the controller
// does), so depth and size limits apply as on the wire.
class FakeTransport final : public AgentTransport {
 public:
  FakeTransport(FakeNode& node, const CancelToken* cancel) : node_(node), cancel_(cancel) {}

  Task<Result<Frame>> RoundTrip(Frame request, int64_t id, Deadline deadline) override {
    if (cancel_ && cancel_->abandon_due()) co_return Status::Cancelled("the run was stopped");
    std::chrono::milliseconds delay{0};
    {
      std::lock_guard<std::mutex> lock(node_.mutex());
      delay = node_.DelayOf(request);
    }
    if (Status waited = co_await Wait(delay, deadline); !waited.ok()) co_return waited;
    Result<Frame> reply = Status::Internal("no reply");
    {
      std::lock_guard<std::mutex> lock(node_.mutex());
      reply = node_.Answer(request);
    }
    if (!reply.ok()) co_return reply.status();
    FrameDecoder decoder(false);
    decoder.Feed(EncodeFrame(reply->header, reply->body));
    std::optional<Frame> decoded = decoder.Next();
    if (!decoded) co_return Status::Corruption("fake node: " + decoder.status().message());
    if (!Answers(*decoded, id)) co_return Status::Corruption("fake node answered another request");
    co_return std::move(*decoded);
  }

  Task<void> Finish(Deadline) override { co_return; }

 private:
  // A node's time to answer, in short sleeps: a stop or the deadline ends it
  // as it would end the wait for a real agent's reply.
  Task<Status> Wait(std::chrono::milliseconds delay, Deadline deadline) {
    const Deadline due = kMachineClock.Monotonic() + delay;
    for (Deadline now = kMachineClock.Monotonic(); now < due; now = kMachineClock.Monotonic()) {
      if (now >= deadline) co_return Status::Timeout("no answer from the agent within the deadline");
      if (cancel_ && cancel_->abandon_due()) co_return Status::Cancelled("the run was stopped");
      const auto left = std::min(due, deadline) - now;
      co_await SleepFor(std::min<std::chrono::milliseconds>(
          std::chrono::milliseconds(20), std::chrono::ceil<std::chrono::milliseconds>(left)));
    }
    co_return Status::Ok();
  }

  FakeNode& node_;
  const CancelToken* cancel_;
};

std::string ResourceKey(const ResourceRequest& request) { return request.kind + " " + JsonText(request.params); }

ResourceResult FakeFile(FakeNode& node, const ResourceRequest& request) {
  ResourceResult result;
  const std::string path = request.params.value("path", std::string());
  auto it = node.files.find(path);
  if (it != node.files.end() && it->second == request.body) return result;
  result.Differs(it == node.files.end() ? "created" : "content");
  if (!request.apply) return result;
  if (it != node.files.end()) {
    result.has_backup = true;
    result.backup = it->second;
  }
  node.files[path] = request.body;
  result.commands.push_back({{"write", path}, true, 0});
  return result;
}

ResourceResult FakeUnit(FakeNode& node, const ResourceRequest& request) {
  ResourceResult result;
  const std::string unit = request.params.value("name", std::string());
  FakeService& service = node.services[unit];
  const std::string state = request.params.value("state", std::string("running"));
  result.unit = UnitState{"inv-" + std::to_string(service.invocation),
                          service.activating_looks > 0 ? "activating" : service.active ? "active" : "inactive", ""};
  if (service.activating_looks > 0) --service.activating_looks;
  const bool restart = state == "restarted" || state == "reloaded";
  if (restart) result.Differs(state == "restarted" ? "restart" : "reload");
  if (state == "running" && !service.active) result.Differs("not running");
  if (state == "stopped" && service.active) result.Differs("running");
  const bool enable = request.params.value("enabled", service.enabled);
  if (enable != service.enabled) result.Differs(enable ? "not enabled" : "enabled");
  if (!request.apply || !result.changed) return result;
  if (restart || (state == "running" && !service.active)) {
    ++service.invocation;
    service.active = true;
    if (restart) ++service.restarts;
  }
  if (state == "stopped") service.active = false;
  service.enabled = enable;
  result.commands.push_back({{"systemctl", state, unit}, true, 0});
  return result;
}

ResourceResult FakePrecondition(FakeNode& node, const ResourceRequest& request) {
  ResourceResult result;
  if (node.asserts_fail || (node.asserts_need_reboot && node.reboots == 0)) {
    result.Fail(request.params.value("message", std::string("assert")));
  }
  return result;
}

}  // namespace

std::map<std::string, FakeKind> DefaultFakeKinds() {
  return {{"file", FakeFile}, {"service", FakeUnit}, {"assert", FakePrecondition}};
}

FakeNode::FakeNode(std::string node_name) : name(std::move(node_name)), facts(FakeFacts(name)) {}

std::chrono::milliseconds FakeNode::DelayOf(const Frame& frame) {
  if (!answer_delay) return std::chrono::milliseconds(0);
  auto decoded = DecodeRequest(frame);
  return decoded.ok() ? answer_delay(*decoded) : std::chrono::milliseconds(0);
}

Result<Frame> FakeNode::Answer(const Frame& frame) {
  auto decoded = DecodeRequest(frame);
  if (!decoded.ok()) return EncodeError(RequestId(frame), kBadRequest, decoded.status().message());
  std::optional<Status> lost;
  if (intercept) {
    Interception interception = intercept(*decoded);
    if (auto* reply = std::get_if<Frame>(&interception)) return *reply;
    if (auto* failure = std::get_if<Status>(&interception)) return *failure;
    if (auto* lose = std::get_if<LoseReply>(&interception)) lost = lose->status;
  }
  Frame reply = Act(*decoded);
  if (lost) return *lost;
  return reply;
}

Frame FakeNode::Act(const IncomingRequest& decoded) {
  const nlohmann::json& id = decoded.id;
  const Request& request = decoded.request;
  if (std::holds_alternative<FactsRequest>(request)) return EncodeFactsReply(id, facts);
  if (auto* exec = std::get_if<ExecRequest>(&request)) return EncodeExecReply(id, Exec(*exec));
  if (auto* resource = std::get_if<ResourceRequest>(&request)) return EncodeResourceReply(id, Resource(*resource));
  if (std::holds_alternative<RebootRequest>(request)) {
    ++reboots;
    rebooting_ = true;
    next_boot_id_ = "boot-" + std::to_string(reboots + 1);
    stale_left_ = stale_opens_after_reboot;
    down_left_ = down_after_reboot;
  }
  return EncodeEmptyReply(id);
}

ExecReply FakeNode::Exec(const ExecRequest& request) {
  if (std::optional<ExecReply> canned = commands.Find(request.argv)) return *canned;
  ExecReply reply;
  reply.exit_code = 0;
  if (request.argv == std::vector<std::string>{"cat", "/proc/sys/kernel/random/boot_id"}) {
    reply.stdout_data = boot_id + "\n";
  }
  return reply;
}

ResourceResult FakeNode::Resource(const ResourceRequest& request) {
  if (auto kind = kinds.find(request.kind); kind != kinds.end()) return kind->second(*this, request);
  ResourceResult result;
  const std::string key = ResourceKey(request);
  if (applied[key] == 0) {
    result.Differs(request.kind + " not applied yet");
    if (request.apply) {
      ++applied[key];
      result.commands.push_back({{request.kind}, true, 0});
    }
  }
  return result;
}

bool FakeNode::ConnectDuringReboot() {
  if (!rebooting_) return true;
  if (stale_left_ > 0) {
    --stale_left_;
    return true;
  }
  if (down_left_ > 0) {
    --down_left_;
    return false;
  }
  rebooting_ = false;
  boot_id = next_boot_id_;
  return true;
}

void FakeNode::PowerCycle() {
  ++power_cycles;
  rebooting_ = false;
  boot_id = "boot-cycled-" + std::to_string(power_cycles);
}

FakeFleet::~FakeFleet() { pool_.join(); }

FakeNode& FakeFleet::Add(const std::string& name) {
  auto& node = nodes_[name];
  node = std::make_unique<FakeNode>(name);
  return *node;
}

Task<OpenedSession> FakeFleet::Open(const Host& host, const CancelToken* cancel) {
  OpenedSession opened;
  auto it = nodes_.find(host.name);
  if (it == nodes_.end()) {
    opened.status = Status::Unavailable(host.name + ": no such fake node");
    opened.unreachable = true;
    co_return opened;
  }
  FakeNode& node = *it->second;
  std::chrono::milliseconds delay;
  {
    std::lock_guard<std::mutex> lock(node.mutex());
    delay = node.open_delay;
  }
  if (delay.count() > 0) co_await SleepFor(delay);
  std::lock_guard<std::mutex> lock(node.mutex());
  ++node.opens;
  opened.notes = node.open_notes;
  if (node.unreachable || !node.ConnectDuringReboot()) {
    opened.status = Status::Unavailable(host.name + ": connection refused");
    opened.unreachable = true;
    co_return opened;
  }
  if (!node.refusal.empty()) {
    opened.status = Status::Unavailable(node.refusal);
    opened.unreachable = true;
    co_return opened;
  }
  Hello hello;
  hello.protocol = kProtocolVersion;
  hello.agent_version = "fake";
  hello.hostname = host.name;
  opened.session = std::make_unique<AgentSession>(std::make_unique<FakeTransport>(node, cancel), hello);
  opened.status = Status::Ok();
  co_return opened;
}

void FakeFleet::ForEach(size_t count, const std::function<Task<void>(size_t)>& body) {
  FanoutOptions options;
  RunConcurrently(pool_, count, options, body);
}

nlohmann::json FakeFacts(const std::string& host, int gpus) {
  return {{"hostname", host},
          {"os", {{"id", "debian"}, {"family", "debian"}, {"version_id", "12"}, {"version_codename", "bookworm"}}},
          {"kernel", {{"release", "6.1.0"}, {"arch", "x86_64"}}},
          {"cpu", {{"cpus", 4}, {"sockets", 1}, {"cores_per_socket", 4}, {"threads_per_core", 1}}},
          {"memory", {{"total_mib", 8192}}},
          {"pci", {{"gpu_count", gpus}, {"hca_count", 0}, {"ib_hca_count", 0}, {"nvswitch_count", 0}}},
          {"kernels", {{"installed", {"6.1.0"}}}},
          {"systemd", true},
          {"network_stack", "systemd-networkd"},
          {"nvidia_driver", nullptr},
          {"gpudirect", {{"kernel_modules", nullptr}, {"recommended", nullptr}, {"dmabuf", false}}},
          {"nfs", {{"kernel_client", true}}}};
}

}  // namespace clusterctl::testing
