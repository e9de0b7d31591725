#include "controller/validate/remote_exec.h"

#include "common/clock.h"

namespace clusterctl {

// A request's deadline is the transport's: the machine's own time.
const SystemClock kMachineClock;

Task<ToolOutput> ExecOnNode(AgentSession& agent, const std::vector<std::string>& argv, const std::string& input,
                            int timeout_s) {
  ToolOutput output;
  agent_protocol::ExecRequest request;
  request.argv = argv;
  request.timeout_ms = static_cast<int64_t>(timeout_s) * 1000;
  request.stdin_data = input;
  Deadline deadline = kMachineClock.Monotonic() + std::chrono::seconds(timeout_s + 30);
  auto reply = co_await agent.Exec(std::move(request), deadline);
  if (!reply.ok()) {
    output.exit_code = -1;
    output.err = IsTransportFailure(reply.status()) ? "no answer from the node: " + reply.status().message()
                                                    : reply.status().message();
    co_return output;
  }
  output.out = std::move(reply->stdout_data);
  output.err = std::move(reply->stderr_data);
  output.exit_code = reply->exit_code;
  output.signal = reply->signal;
  output.started = reply->started;
  output.timed_out = reply->timed_out;
  output.truncated = reply->truncated;
  co_return output;
}

Task<bool> IsExecutableOnNode(AgentSession& agent, const std::string& path, int timeout_s) {
  std::vector<std::string> argv = {"test", "-x", path};
  ToolOutput found = co_await ExecOnNode(agent, argv, std::string(), timeout_s);
  co_return found.exit_code == 0;
}

}  // namespace clusterctl
