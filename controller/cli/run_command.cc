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
  std::vector<HostResult> results = RunCommand(command->run(), command->sessions(), *services.clock);
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
