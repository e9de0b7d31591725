// Dispatches protocol requests to the agent's capabilities. Pure with respect
// to I/O on the protocol stream: main.cc reads and writes the frames.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "agent/protocol/frame.h"

namespace clusterctl {

class RequestHandler {
 public:
  struct Response {
    nlohmann::json header;
    std::string body;
    bool shutdown = false;
  };

  Response Handle(const agent_protocol::Frame& request);

 private:
  Response Facts(const nlohmann::json& request);
  Response Exec(const nlohmann::json& request, const std::string& body);
  Response Resource(const nlohmann::json& request, const std::string& body);
  Response UploadChunk(const nlohmann::json& request, const std::string& body);
  Response Reboot(const nlohmann::json& request);
};

}  // namespace clusterctl
