// command: an argument vector for what no resource covers. It is idempotent
// only through its guards: `creates` (skip when the path exists) and
// `unless` (skip when that command exits 0). Without guards it runs on every
// apply and always reports a change, which the plan says.
#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl::agent {

ResourceOutcome CommandResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  std::vector<std::string> argv;
  for (const auto& word : p["argv"]) argv.push_back(word.is_string() ? word.get<std::string>() : JsonText(word));
  if (argv.empty()) return outcome.Fail("command needs a non-empty argv");
  if (p.contains("creates") && StatPath(p["creates"].get<std::string>()).exists) return outcome;
  if (p.contains("unless")) {
    CommandSpec guard;
    for (const auto& word : p["unless"]) guard.argv.push_back(word.get<std::string>());
    if (!guard.argv.empty() && host.Run(guard, false).exit_code == 0) return outcome;
  }
  outcome.Differs(p.contains("creates") ? p["creates"].get<std::string>() + " missing: would run " + Join(argv, " ")
                                        : "would run " + Join(argv, " "));
  if (!request.apply) return outcome;
  CommandSpec spec;
  spec.argv = argv;
  if (p.contains("env")) spec.env = p["env"].get<std::map<std::string, std::string>>();
  if (p.contains("timeout")) spec.timeout = std::chrono::seconds(p["timeout"].get<int>());
  spec.stdin_data = request.body;
  CommandResult result = host.Run(spec, true);
  std::string output = result.stdout_data + result.stderr_data;
  outcome.output = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  // A command that handles secrets (feeds a grants file to mariadb) may echo
  // them in its errors ("near 'IDENTIFIED BY ..."): its output never leaves the node.
  if (p.value("secret", false)) outcome.output = output.empty() ? "" : "(output not shown: the step is secret)";
  if (result.exit_code != 0) {
    outcome.Fail(argv[0] + (result.timed_out ? " timed out" : " exited with status " + std::to_string(result.exit_code)));
    outcome.failed_command = Join(argv, " ");
  }
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kCommandKind(
    {"command", "a command (argument vector) for what no resource covers, guarded by creates/unless",
     {P("argv", T::kStringList, true), P("creates", T::kString), P("unless", T::kStringList),
      P("env", T::kStringMap), P("timeout", T::kInt), P("secret", T::kBool)},
     {}},
    CommandResource);

}  // namespace

}  // namespace clusterctl::agent
