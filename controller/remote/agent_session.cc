#include "controller/remote/agent_session.h"

#include "common/clock.h"

namespace clusterctl {

// Transport deadlines are on the machine's own time.
const SystemClock kMachineClock;

using namespace agent_protocol;

bool IsTransportFailure(const Status& status) {
  return status.code() == Status::Code::kUnavailable || status.code() == Status::Code::kTimeout;
}

// Note for all coroutines here: arguments of a co_await are named locals, not
// temporaries (g++ 12 destroys such temporaries twice).

Task<Result<Frame>> AgentSession::Send(Request request, Deadline deadline) {
  const int64_t id = next_id_++;
  Frame frame = EncodeRequest(id, request);
  co_return co_await transport_->RoundTrip(std::move(frame), id, deadline);
}

Task<Result<nlohmann::json>> AgentSession::Facts(Deadline deadline) {
  Request request = FactsRequest{};
  auto reply = co_await Send(std::move(request), deadline);
  if (!reply.ok()) co_return reply.status();
  co_return DecodeFactsReply(*reply);
}

Task<Result<ExecReply>> AgentSession::Exec(ExecRequest exec, Deadline deadline) {
  Request request = std::move(exec);
  auto reply = co_await Send(std::move(request), deadline);
  if (!reply.ok()) co_return reply.status();
  co_return DecodeExecReply(*reply);
}

Task<Result<ResourceResult>> AgentSession::Resource(ResourceRequest resource, Deadline deadline) {
  Request request = std::move(resource);
  auto reply = co_await Send(std::move(request), deadline);
  if (!reply.ok()) co_return reply.status();
  co_return DecodeResourceReply(*reply);
}

Task<Status> AgentSession::UploadChunk(UploadChunkRequest chunk, Deadline deadline) {
  Request request = std::move(chunk);
  auto reply = co_await Send(std::move(request), deadline);
  if (!reply.ok()) co_return reply.status();
  co_return DecodeEmptyReply(*reply);
}

Task<Status> AgentSession::Reboot(int delay_ms, Deadline deadline) {
  Request request = RebootRequest{delay_ms};
  auto reply = co_await Send(std::move(request), deadline);
  if (!reply.ok()) co_return reply.status();
  co_return DecodeEmptyReply(*reply);
}

Task<Status> AgentSession::Ping(Deadline deadline) {
  Request request = PingRequest{};
  auto reply = co_await Send(std::move(request), deadline);
  if (!reply.ok()) co_return reply.status();
  co_return DecodeEmptyReply(*reply);
}

Task<void> AgentSession::Close(Deadline deadline) {
  // Best effort: the agent answers so sshd reaps it cleanly, then its stdin closes.
  const Deadline answer_by = std::min(deadline, kMachineClock.Monotonic() + std::chrono::seconds(2));
  Request request = ShutdownRequest{};
  auto reply = co_await Send(std::move(request), answer_by);
  (void)reply;
  co_await transport_->Finish(deadline);
}

}  // namespace clusterctl
