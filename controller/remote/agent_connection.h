// AgentConnection: one SSH session to a node carrying the agent's
// request/response stream (docs/agent-protocol.md): the real AgentTransport
// under an AgentSession.
//
// Owned by one coroutine on one strand. While a request waits for its answer
// the connection sends an SSH keepalive every `keepalive_interval`; with
// TCP_USER_TIMEOUT on the socket, a node that stops answering fails the
// request within about keepalive_interval + io_timeout instead of hanging.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/protocol/frame.h"
#include "common/clock.h"
#include "common/cancel_token.h"
#include "controller/remote/agent_session.h"
#include "controller/ssh/ssh_session.h"

namespace clusterctl {

class AgentConnection final : public AgentTransport {
 public:
  // `cancel` (optional) abandons a request in flight once the run's stop
  // grace has passed (Status Cancelled), checked at least once a second.
  AgentConnection(std::unique_ptr<SshSession> session, std::unique_ptr<SshChannel> channel,
                  agent_protocol::FrameDecoder decoder, std::chrono::seconds keepalive_interval,
                  const CancelToken* cancel = nullptr)
      : session_(std::move(session)),
        channel_(std::move(channel)),
        decoder_(std::move(decoder)),
        keepalive_interval_(keepalive_interval),
        cancel_(cancel) {}

  // What the start command's stderr calls for, as it arrives.
  enum class StartAction { kWait, kGiveUp, kAnswer };
  using StartWatch = std::function<StartAction(const std::string& stderr_so_far)>;

  // Reads the preamble and the hello frame. Fails with what the process
  // printed when it ends first (sudo refusing, the agent missing), or at once
  // when `watch` says the start has failed (sudo asking for the password
  // again after a wrong one). When `watch` says kAnswer (sudo's prompt
  // appeared), `answer` is written to the process's stdin: the password
  // goes only to a sudo that asks for it, never to the agent.
  Task<Status> ReadHello(Deadline deadline, const StartWatch& watch, std::string_view answer = {});
  const agent_protocol::Hello& hello() const { return hello_; }

  // AgentTransport. An "error" reply comes back as a frame too; transport
  // failures are a non-ok Result.
  Task<Result<agent_protocol::Frame>> RoundTrip(agent_protocol::Frame request, int64_t id, Deadline deadline) override;
  Task<void> Finish(Deadline deadline) override;

  // What the remote process wrote to stderr (last 4 KiB), and its exit status
  // once it ended.
  const std::string& stderr_tail() const { return stderr_tail_; }
  std::optional<int> exit_status() { return channel_->ExitStatus(); }
  // Waits (briefly) for the remote process's exit status after its output ended.
  Task<std::optional<int>> WaitExitStatus(Deadline deadline);
  SshChannel& channel() { return *channel_; }

  // Gives the session back (after a failed start, to upload the agent over
  // it). REQUIRES: the connection is destroyed before the session is used,
  // which frees the channel while the session still lives.
  std::unique_ptr<SshSession> ReleaseSession() { return std::move(session_); }

 private:
  // Reads until a frame is decoded; nullopt frame + ok status means EOF.
  // During the start, `watch` (optional) sees stderr as it arrives: it stops
  // the read with PermissionDenied, or has `answer` written.
  Task<Result<std::optional<agent_protocol::Frame>>> NextFrame(Deadline deadline, const StartWatch* watch = nullptr,
                                                              std::string_view answer = {});

  std::unique_ptr<SshSession> session_;
  std::unique_ptr<SshChannel> channel_;
  agent_protocol::FrameDecoder decoder_;
  std::chrono::seconds keepalive_interval_;
  const CancelToken* cancel_;
  agent_protocol::Hello hello_;
  std::string stderr_tail_;
  std::chrono::steady_clock::time_point last_keepalive_ = SystemClock().Monotonic();
};

}  // namespace clusterctl
