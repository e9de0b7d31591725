// AgentSession: the typed client of one node's agent (docs/agent-protocol.md).
//
// Every request the controller sends goes through one of these methods, which
// encode it and decode its reply with the protocol's codec
// (agent/protocol/messages.h); nothing else builds a request or reads a
// reply by its JSON keys. Underneath is an AgentTransport: the SSH channel to
// a real agent (AgentConnection), or a fake node in unit tests.
//
// Errors: a transport failure keeps its code (Unavailable or Timeout: the
// host is unreachable; Cancelled: the run was stopped and its grace passed);
// an `error` reply or a malformed one is any other non-ok Status with a
// message naming what was wrong. Owned by one coroutine on one strand.
#pragma once

#include <memory>
#include <string>

#include "agent/protocol/messages.h"
#include "controller/ssh/ssh_session.h"

namespace clusterctl {

class AgentTransport {
 public:
  virtual ~AgentTransport() = default;
  // Sends `request` and returns the frame that answers request `id`
  // (agent_protocol::Answers), skipping stale answers to earlier requests.
  virtual Task<Result<agent_protocol::Frame>> RoundTrip(agent_protocol::Frame request, int64_t id,
                                                        Deadline deadline) = 0;
  // Ends the stream (the agent exits when its stdin closes). Best effort.
  virtual Task<void> Finish(Deadline deadline) = 0;
};

// Whether a failed request means the host could not be talked to (vs. it
// answered, and the answer was an error or garbage).
bool IsTransportFailure(const Status& status);

class AgentSession {
 public:
  AgentSession(std::unique_ptr<AgentTransport> transport, agent_protocol::Hello hello)
      : transport_(std::move(transport)), hello_(std::move(hello)) {}

  const agent_protocol::Hello& hello() const { return hello_; }

  Task<Result<nlohmann::json>> Facts(Deadline deadline);
  Task<Result<agent_protocol::ExecReply>> Exec(agent_protocol::ExecRequest request, Deadline deadline);
  Task<Result<agent_protocol::ResourceResult>> Resource(agent_protocol::ResourceRequest request, Deadline deadline);
  Task<Status> UploadChunk(agent_protocol::UploadChunkRequest request, Deadline deadline);
  // The agent answers, then reboots the node after `delay_ms`.
  Task<Status> Reboot(int delay_ms, Deadline deadline);
  Task<Status> Ping(Deadline deadline);
  // Asks the agent to exit and ends the stream; the session is unusable after.
  Task<void> Close(Deadline deadline);

 private:
  Task<Result<agent_protocol::Frame>> Send(agent_protocol::Request request, Deadline deadline);

  std::unique_ptr<AgentTransport> transport_;
  agent_protocol::Hello hello_;
  int64_t next_id_ = 1;
};

}  // namespace clusterctl
