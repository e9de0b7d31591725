#include "controller/cli/run_command.h"

#include <algorithm>
#include <map>

#include "common/json_text.h"
#include "controller/cli/exit_codes.h"
#include "controller/output/terminal_text.h"
#include "inventory/hostlist.h"

namespace clusterctl {

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
  RunRequest request;
  request.kind = RunKind::kCommand;
  request.limit = options.limit;
  request.command = {argv, std::chrono::seconds(timeout_s), max_output_bytes};
  int exit_code = 0;
  auto command = RemoteCommand::Prepare(request, options, global, services, exit_code);
  if (!command) return exit_code;
  std::vector<HostResult> results = RunCommand(command->run(), command->sessions());
  std::vector<OutputGroup> groups = GroupOutputs(results);
  CompletedRun completed = CompleteCommand(command->session(), results, groups);

  std::ostream& out = *services.out;
  if (global.json) {
    nlohmann::json hosts = nlohmann::json::object();
    for (const HostResult& r : results) {
      hosts[r.host->name] = r.state == HostResult::State::kOk ? r.data
                                                              : nlohmann::json{{"state", ToString(r.state)}, {"error", r.error}};
    }
    out << JsonText(nlohmann::json{{"command", argv}, {"hosts", hosts}}, 2) << "\n";
  } else {
    PrintOutputGroups(groups, out);
  }
  bool any_nonzero = false;
  for (const OutputGroup& g : groups) any_nonzero = any_nonzero || g.exit_code != 0;
  int finished = command->Report(completed, results);
  return (finished != kExitOk || any_nonzero) ? kExitFailed : kExitOk;
}

}  // namespace clusterctl
