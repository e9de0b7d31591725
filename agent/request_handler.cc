#include "agent/request_handler.h"

#include "agent/exec/run_command.h"
#include "agent/facts/gather.h"
#include "agent/resources/resource.h"

namespace clusterctl {
namespace {

RequestHandler::Response Error(const nlohmann::json& id, const std::string& code, const std::string& message) {
  return {{{"type", "error"}, {"id", id}, {"code", code}, {"message", message}}, "", false};
}

}  // namespace

RequestHandler::Response RequestHandler::Handle(const agent_protocol::Frame& request) {
  const nlohmann::json& header = request.header;
  const nlohmann::json id = header.contains("id") ? header["id"] : nlohmann::json(nullptr);
  const std::string type = header.value("type", "");
  try {
    if (type == "facts") return Facts(header);
    if (type == "exec") return Exec(header, request.body);
    if (type == "resource") return Resource(header, request.body);
    if (type == "upload_chunk") return UploadChunk(header, request.body);
    if (type == "reboot") return Reboot(header);
    if (type == "ping") return {{{"type", "result"}, {"id", id}}, "", false};
    if (type == "shutdown") return {{{"type", "result"}, {"id", id}}, "", true};
    return Error(id, "unknown_type", "unknown request type '" + type + "'");
  } catch (const nlohmann::json::exception& e) {
    return Error(id, "bad_request", std::string("malformed ") + type + " request: " + e.what());
  }
}

RequestHandler::Response RequestHandler::Facts(const nlohmann::json& request) {
  facts::GatherOptions options;
  if (request.contains("packages")) options.packages = request["packages"].get<std::vector<std::string>>();
  return {{{"type", "result"}, {"id", request["id"]}, {"facts", facts::GatherFacts(options)}}, "", false};
}

RequestHandler::Response RequestHandler::Exec(const nlohmann::json& request, const std::string& body) {
  agent::CommandSpec spec;
  spec.argv = request.at("argv").get<std::vector<std::string>>();
  if (spec.argv.empty()) return Error(request["id"], "bad_request", "exec needs a non-empty argv");
  if (request.contains("env")) spec.env = request["env"].get<std::map<std::string, std::string>>();
  if (request.contains("timeout_ms")) spec.timeout = std::chrono::milliseconds(request["timeout_ms"].get<int64_t>());
  spec.stdin_data = body;
  agent::CommandResult result = agent::RunCommand(spec);
  nlohmann::json header = {{"type", "result"},
                           {"id", request["id"]},
                           {"exit_code", result.exit_code},
                           {"signal", result.signal},
                           {"timed_out", result.timed_out},
                           {"truncated", result.truncated},
                           {"started", result.started},
                           {"duration_ms", result.duration.count()},
                           {"stdout_bytes", result.stdout_data.size()}};
  return {header, result.stdout_data + result.stderr_data, false};
}

RequestHandler::Response RequestHandler::Resource(const nlohmann::json& request, const std::string& body) {
  agent::ResourceRequest resource;
  resource.kind = request.at("kind").get<std::string>();
  resource.params = request.value("params", nlohmann::json::object());
  resource.apply = request.value("apply", false);
  resource.body = body;
  agent::ResourceHost host;
  agent::ResourceOutcome outcome = agent::RunResource(resource, host);
  nlohmann::json header = {{"type", "result"}, {"id", request["id"]}, {"outcome", agent::OutcomeToJson(outcome, host)}};
  return {header, outcome.has_backup ? outcome.backup : "", false};
}

RequestHandler::Response RequestHandler::UploadChunk(const nlohmann::json& request, const std::string& body) {
  Status written = agent::WriteUploadChunk(request.at("path").get<std::string>(), request.at("offset").get<uint64_t>(), body);
  if (!written.ok()) return Error(request["id"], "io_error", written.message());
  return {{{"type", "result"}, {"id", request["id"]}}, "", false};
}

RequestHandler::Response RequestHandler::Reboot(const nlohmann::json& request) {
  Status scheduled = agent::ScheduleReboot(request.value("delay_ms", 1000));
  if (!scheduled.ok()) return Error(request["id"], "io_error", scheduled.message());
  return {{{"type", "result"}, {"id", request["id"]}}, "", false};
}

}  // namespace clusterctl
