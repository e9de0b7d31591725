#include "controller/run/command_run.h"

#include <algorithm>
#include <map>

namespace clusterctl {

std::vector<HostResult> RunCommand(const PreparedRun& run, SessionFactory& sessions, const Clock& clock) {
  const AdHocCommand& command = run.request.command;
  return RunOnHosts(sessions, run.hosts, [&command, &clock](AgentSession& agent, HostResult& result) -> Task<void> {
    agent_protocol::ExecRequest request;
    request.argv = command.argv;
    request.timeout_ms = std::chrono::duration_cast<std::chrono::milliseconds>(command.timeout).count();
    // Every host's output is held until all are done (to group them): a
    // bound per host keeps 2000 hosts' outputs in bounded memory.
    request.max_output_bytes = command.max_output_bytes;
    auto reply = co_await agent.Exec(std::move(request),
                                     clock.Monotonic() + command.timeout + std::chrono::seconds(30));
    if (!reply.ok()) {
      result.Fail(reply.status());
      co_return;
    }
    int code = reply->started ? reply->exit_code : 127;
    std::string output = reply->stdout_data + reply->stderr_data;
    if (reply->timed_out) output += "[clusterctl: killed after " + std::to_string(command.timeout.count()) + " s]\n";
    if (reply->truncated) {
      output += "[clusterctl: output cut at " + std::to_string(command.max_output_bytes) +
                " bytes per stream; --max-output raises it]\n";
    }
    result.data = {{"exit_code", code}, {"output", output}};
  });
}

std::vector<OutputGroup> GroupOutputs(const std::vector<std::pair<std::string, std::pair<std::string, int>>>& outputs) {
  std::map<std::pair<std::string, int>, OutputGroup> groups;
  for (const auto& [host, result] : outputs) {
    OutputGroup& group = groups[result];
    group.hosts.push_back(host);
    group.output = result.first;
    group.exit_code = result.second;
  }
  std::vector<OutputGroup> ordered;
  for (auto& [key, group] : groups) ordered.push_back(std::move(group));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const OutputGroup& a, const OutputGroup& b) { return a.hosts.size() > b.hosts.size(); });
  return ordered;
}

std::vector<OutputGroup> GroupOutputs(const std::vector<HostResult>& results) {
  std::vector<std::pair<std::string, std::pair<std::string, int>>> outputs;
  for (const HostResult& r : results) {
    if (r.state == HostResult::State::kOk) {
      outputs.push_back({r.host->name, {r.data["output"].get<std::string>(), r.data["exit_code"].get<int>()}});
    }
  }
  return GroupOutputs(outputs);
}

CompletedRun CompleteCommand(RunSession& session, const std::vector<HostResult>& results,
                             const std::vector<OutputGroup>& groups) {
  return CompleteRun(session, results, {{"hosts", results.size()}, {"groups", groups.size()}});
}

}  // namespace clusterctl
