#include "controller/cli/run_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>

#include "common/duration_text.h"
#include "common/json_text.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/option_values.h"
#include "controller/output/terminal_text.h"
#include "inventory/hostlist.h"

namespace clusterctl {

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

void PrintOutputGroups(const std::vector<OutputGroup>& groups, std::ostream& out) {
  for (const OutputGroup& g : groups) {
    std::string header = CollapseHostList(g.hosts) + " (" + std::to_string(g.hosts.size()) + " host" +
                         (g.hosts.size() == 1 ? "" : "s") + ", exit " + std::to_string(g.exit_code) + ")";
    std::string rule(std::min<size_t>(header.size(), 72), '-');
    const std::string output = TerminalText(g.output, TextShape::kLines);
    out << rule << "\n" << header << "\n" << rule << "\n" << output;
    if (!output.empty() && output.back() != '\n') out << "\n";
  }
}

int RunAdHoc(const RemoteCommandOptions& options, const std::vector<std::string>& argv, int timeout_s,
             uint64_t max_output_bytes,
             const GlobalOptions& global, const Services& services) {
  if (argv.empty()) {
    services.log->Error("clusterctl run: give the command after --, e.g. clusterctl run site.yaml -- uname -r");
    return kExitUsage;
  }
  int exit_code = 0;
  auto command = RemoteCommand::Prepare("run", options, global, services, exit_code);
  if (!command) return exit_code;
  std::vector<HostResult> results = command->Run([&](AgentSession& agent, HostResult& result) -> Task<void> {
    agent_protocol::ExecRequest request;
    request.argv = argv;
    request.timeout_ms = int64_t{timeout_s} * 1000;
    // Every host's output is held until all are done (to group them): a
    // bound per host keeps 2000 hosts' outputs in bounded memory.
    request.max_output_bytes = max_output_bytes;
    auto reply = co_await agent.Exec(std::move(request),
                                     std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s + 30));
    if (!reply.ok()) {
      result.Fail(reply.status());
      co_return;
    }
    int code = reply->started ? reply->exit_code : 127;
    std::string output = reply->stdout_data + reply->stderr_data;
    if (reply->timed_out) output += "[clusterctl: killed after " + std::to_string(timeout_s) + " s]\n";
    if (reply->truncated) {
      output += "[clusterctl: output cut at " + std::to_string(max_output_bytes) + " bytes per stream; --max-output raises it]\n";
    }
    result.data = {{"exit_code", code}, {"output", output}};
  });

  std::vector<std::pair<std::string, std::pair<std::string, int>>> outputs;
  for (const HostResult& r : results) {
    if (r.state == HostResult::State::kOk) {
      outputs.push_back({r.host->name, {r.data["output"].get<std::string>(), r.data["exit_code"].get<int>()}});
    }
  }
  std::vector<OutputGroup> groups = GroupOutputs(outputs);
  std::ostream& out = *services.out;
  bool any_nonzero = false;
  if (global.json) {
    nlohmann::json hosts = nlohmann::json::object();
    for (const HostResult& r : results) {
      hosts[r.host->name] = r.state == HostResult::State::kOk ? r.data
                                                              : nlohmann::json{{"state", ToString(r.state)}, {"error", r.error}};
    }
    out << JsonText(nlohmann::json{{"command", argv}, {"hosts", hosts}}, 2) << "\n";
  }
  for (const OutputGroup& g : groups) any_nonzero = any_nonzero || g.exit_code != 0;
  if (!global.json) PrintOutputGroups(groups, out);
  int finished = command->Finish(results, {{"hosts", results.size()}, {"groups", groups.size()}});
  return (finished != kExitOk || any_nonzero) ? kExitFailed : kExitOk;
}

void AddRunCommand(CLI::App& app, CommandValues& v) {
  struct RunValues {
    RemoteCommandOptions remote;
    std::vector<std::string> argv;
    int timeout_s = 600;
    uint64_t max_output = 256 * 1024;
  };
  RunValues& o = v.Keep<RunValues>();
  CLI::App* run = app.add_subcommand("run", "run a command (no shell) as root on every selected host");
  AddRemoteOptions(run, v, o.remote, &o.argv);
  run->add_option("-t,--timeout", o.timeout_s, "time before the command is killed (90, 60s, 5m, 1h; up to 1d)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(1, 86400))
      ->default_str(FormatDurationSeconds(o.timeout_s));
  run->add_option("--max-output", o.max_output, "bytes of stdout and of stderr kept per host (default 262144)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{16} << 20));
  run->add_option("COMMAND", o.argv, "the command and its arguments, after --");
  v.take_words_after_dashes.insert(run);
  run->callback([&v, &o] {
    o.argv.insert(o.argv.end(), v.after_dashes.begin(), v.after_dashes.end());
    v.exit_code = RunAdHoc(o.remote, o.argv, o.timeout_s, o.max_output, v.options, v.services);
  });
}

}  // namespace clusterctl
