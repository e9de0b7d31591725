#include "controller/remote/agent_connection.h"

#include <algorithm>

#include "common/clock.h"

namespace clusterctl {

// Transport deadlines and keepalives are on the machine's own time.
const SystemClock kMachineClock;

Task<Result<std::optional<agent_protocol::Frame>>> AgentConnection::NextFrame(Deadline deadline,
                                                                             const StartWatch* watch,
                                                                             std::string_view answer) {
  while (true) {
    if (auto frame = decoder_.Next()) co_return std::optional<agent_protocol::Frame>(std::move(*frame));
    if (!decoder_.status().ok()) co_return decoder_.status();
    if (cancel_ && cancel_->abandon_due()) {
      co_return Status::Cancelled("the run was stopped; the request in flight was abandoned");
    }
    // While a stop is pending, wake at least once a second to notice its grace ending.
    const auto wake = cancel_ && cancel_->cancelled() ? std::min(keepalive_interval_, std::chrono::seconds(1))
                                                      : std::chrono::seconds(keepalive_interval_);
    auto slice = std::min(deadline, kMachineClock.Monotonic() + wake);
    std::string out, err;
    bool eof = false;
    Status read = co_await channel_->Read(out, &err, eof, slice);
    if (!err.empty()) {
      stderr_tail_ += err;
      if (stderr_tail_.size() > 4096) stderr_tail_.erase(0, stderr_tail_.size() - 4096);
      const StartAction action = watch ? (*watch)(stderr_tail_) : StartAction::kWait;
      if (action == StartAction::kGiveUp) co_return Status::PermissionDenied(stderr_tail_);
      if (action == StartAction::kAnswer) {
        Status answered = co_await channel_->Write(answer, deadline);
        if (!answered.ok()) co_return answered;
      }
    }
    if (!read.ok()) {
      if (read.code() == Status::Code::kTimeout && kMachineClock.Monotonic() < deadline) {
        if (kMachineClock.Monotonic() >= last_keepalive_ + keepalive_interval_) {
          session_->SendKeepalive();
          last_keepalive_ = kMachineClock.Monotonic();
        }
        continue;
      }
      co_return read;
    }
    decoder_.Feed(out);
    if (eof) {
      if (auto frame = decoder_.Next()) co_return std::optional<agent_protocol::Frame>(std::move(*frame));
      co_return std::optional<agent_protocol::Frame>();
    }
  }
}

Task<Status> AgentConnection::ReadHello(Deadline deadline, const StartWatch& watch, std::string_view answer) {
  auto frame = co_await NextFrame(deadline, &watch, answer);
  if (!frame.ok()) co_return frame.status();
  if (!frame->has_value()) co_return Status::Unavailable("the agent ended before saying hello");
  auto hello = agent_protocol::DecodeHello(**frame);
  if (!hello.ok()) co_return hello.status();
  hello_ = std::move(hello).value();
  co_return Status::Ok();
}

Task<Result<agent_protocol::Frame>> AgentConnection::RoundTrip(agent_protocol::Frame request, int64_t id,
                                                               Deadline deadline) {
  // Named, not a temporary inside the co_await (g++ 12 coroutine bug).
  const std::string encoded = agent_protocol::EncodeFrame(request.header, request.body);
  Status written = co_await channel_->Write(encoded, deadline);
  if (!written.ok()) co_return written;
  while (true) {
    auto frame = co_await NextFrame(deadline);
    if (!frame.ok()) {
      if (frame.status().code() == Status::Code::kTimeout) {
        co_return Status::Timeout("no answer from the agent within the deadline");
      }
      co_return frame.status();
    }
    if (!frame->has_value()) {
      std::optional<int> status =
          co_await WaitExitStatus(std::min(deadline, kMachineClock.Monotonic() + std::chrono::seconds(1)));
      std::string detail = status ? " (exit status " + std::to_string(*status) + ")" : " (killed by a signal?)";
      if (!stderr_tail_.empty()) detail += ": " + stderr_tail_.substr(stderr_tail_.rfind('\n', stderr_tail_.size() - 2) + 1);
      co_return Status::Unavailable("the agent ended in the middle of a request" + detail);
    }
    if (agent_protocol::Answers(**frame, id)) co_return std::move(**frame);
    // A stale answer to an earlier request that timed out: skip it.
  }
}

Task<std::optional<int>> AgentConnection::WaitExitStatus(Deadline deadline) {
  while (true) {
    if (std::optional<int> status = channel_->ExitStatus()) co_return status;
    if (kMachineClock.Monotonic() >= deadline) co_return std::nullopt;
    Status waited = co_await session_->WaitForIo(
        std::min(deadline, kMachineClock.Monotonic() + std::chrono::milliseconds(50)));
    if (!waited.ok() && waited.code() != Status::Code::kTimeout) co_return channel_->ExitStatus();
  }
}

Task<void> AgentConnection::Finish(Deadline deadline) {
  (void)deadline;
  channel_->SendEof();
  co_return;
}

}  // namespace clusterctl
