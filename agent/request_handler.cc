#include "agent/request_handler.h"

#include "agent/exec/run_command.h"
#include "agent/facts/gather.h"
#include "agent/resources/resource.h"

namespace clusterctl {

using namespace agent_protocol;

RequestHandler::Response RequestHandler::Handle(const Frame& frame) {
  Frame reply;
  bool shutdown = false;
  auto decoded = DecodeRequest(frame);
  if (!decoded.ok()) {
    const bool unknown = decoded.status().code() == Status::Code::kUnsupported;
    reply = EncodeError(RequestId(frame), unknown ? kUnknownType : kBadRequest, decoded.status().message());
    return {std::move(reply.header), std::move(reply.body), false};
  }
  const nlohmann::json& id = decoded->id;
  try {
    if (auto* facts = std::get_if<FactsRequest>(&decoded->request)) reply = Facts(id, *facts);
    if (auto* exec = std::get_if<ExecRequest>(&decoded->request)) reply = Exec(id, *exec);
    if (auto* resource = std::get_if<ResourceRequest>(&decoded->request)) reply = Resource(id, *resource);
    if (auto* chunk = std::get_if<UploadChunkRequest>(&decoded->request)) reply = UploadChunk(id, *chunk);
    if (auto* reboot = std::get_if<RebootRequest>(&decoded->request)) reply = Reboot(id, *reboot);
    if (std::holds_alternative<PingRequest>(decoded->request)) reply = EncodeEmptyReply(id);
    if (std::holds_alternative<ShutdownRequest>(decoded->request)) {
      reply = EncodeEmptyReply(id);
      shutdown = true;
    }
  } catch (const std::exception& e) {
    reply = EncodeError(id, kBadRequest, std::string("the request failed: ") + e.what());
  }
  return {std::move(reply.header), std::move(reply.body), shutdown};
}

Frame RequestHandler::Facts(const nlohmann::json& id, const FactsRequest& request) {
  facts::GatherOptions options;
  options.packages = request.packages;
  return EncodeFactsReply(id, facts::GatherFacts(options));
}

Frame RequestHandler::Exec(const nlohmann::json& id, const ExecRequest& request) {
  agent::CommandSpec spec;
  spec.argv = request.argv;
  spec.env = request.env;
  if (request.timeout_ms) spec.timeout = std::chrono::milliseconds(*request.timeout_ms);
  if (request.max_output_bytes) spec.output_limit = std::min<uint64_t>(*request.max_output_bytes, spec.output_limit);
  spec.stdin_data = request.stdin_data;
  spec.hangup = hangup_;
  agent::CommandResult result = agent::RunCommand(spec);
  ExecReply reply;
  reply.exit_code = result.exit_code;
  reply.signal = result.signal;
  reply.timed_out = result.timed_out;
  reply.truncated = result.truncated;
  reply.started = result.started;
  reply.duration_ms = result.duration.count();
  reply.stdout_data = std::move(result.stdout_data);
  reply.stderr_data = std::move(result.stderr_data);
  return EncodeExecReply(id, reply);
}

Frame RequestHandler::Resource(const nlohmann::json& id, const ResourceRequest& request) {
  agent::ResourceHost host(hangup_);
  agent::ResourceOutcome outcome = agent::RunResource(request, host);
  outcome.commands = host.log();
  return EncodeResourceReply(id, outcome);
}

Frame RequestHandler::UploadChunk(const nlohmann::json& id, const UploadChunkRequest& request) {
  Status written = agent::WriteUploadChunk(request.path, request.offset, request.data);
  if (!written.ok()) return EncodeError(id, kIoError, written.message());
  return EncodeEmptyReply(id);
}

Frame RequestHandler::Reboot(const nlohmann::json& id, const RebootRequest& request) {
  Status scheduled = agent::ScheduleReboot(request.delay_ms);
  if (!scheduled.ok()) return EncodeError(id, kIoError, scheduled.message());
  return EncodeEmptyReply(id);
}

}  // namespace clusterctl
