// Dispatches protocol requests to the agent's capabilities. Pure with respect
// to I/O on the protocol stream: main.cc reads and writes the frames.
// Requests are decoded and replies encoded by the protocol's one codec
// (agent/protocol/messages.h), shared with the controller.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "agent/exec/hangup_watch.h"
#include "agent/protocol/messages.h"

namespace clusterctl {

class RequestHandler {
 public:
  // `hangup`: the controller's session; the commands a request runs stop
  // when it closes (none is watched by default).
  explicit RequestHandler(agent::HangupWatch hangup = {}) : hangup_(hangup) {}

  struct Response {
    nlohmann::json header;
    std::string body;
    bool shutdown = false;
  };

  // Never throws: a request it cannot decode gets an `error` reply.
  Response Handle(const agent_protocol::Frame& request);

 private:
  agent_protocol::Frame Facts(const nlohmann::json& id, const agent_protocol::FactsRequest& request);
  agent_protocol::Frame Exec(const nlohmann::json& id, const agent_protocol::ExecRequest& request);
  agent_protocol::Frame Resource(const nlohmann::json& id, const agent_protocol::ResourceRequest& request);
  agent_protocol::Frame UploadChunk(const nlohmann::json& id, const agent_protocol::UploadChunkRequest& request);
  agent_protocol::Frame Reboot(const nlohmann::json& id, const agent_protocol::RebootRequest& request);

  agent::HangupWatch hangup_;
};

}  // namespace clusterctl
