#include "controller/validate/remote_exec.h"

namespace clusterctl {

Task<ToolOutput> ExecOnNode(AgentConnection& agent, const std::vector<std::string>& argv, const std::string& input,
                            int timeout_s) {
  ToolOutput output;
  nlohmann::json request = {{"type", "exec"}, {"argv", argv}, {"timeout_ms", static_cast<int64_t>(timeout_s) * 1000}};
  Deadline deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s + 30);
  auto reply = co_await agent.Call(request, input, deadline);
  if (!reply.ok()) {
    output.exit_code = -1;
    output.err = "no answer from the node: " + reply.status().message();
    co_return output;
  }
  const nlohmann::json& h = reply->header;
  if (h.value("type", "") != "result") {
    output.exit_code = -1;
    output.err = "agent: " + h.value("message", h.dump());
    co_return output;
  }
  size_t stdout_bytes = std::min<size_t>(h.value("stdout_bytes", reply->body.size()), reply->body.size());
  output.out = reply->body.substr(0, stdout_bytes);
  output.err = reply->body.substr(stdout_bytes);
  output.exit_code = h.value("exit_code", -1);
  output.started = h.value("started", true);
  output.timed_out = h.value("timed_out", false);
  co_return output;
}

}  // namespace clusterctl
