// assert: a precondition checked on the node, in plan and deploy alike.
// It runs `argv` (a read-only probe) and never changes anything: exit 0
// holds, anything else fails the step with `message` and what the probe
// printed, so the role stops before its later steps change the node. Roles
// use it to refuse what would break a node (an MLNX_OFED bundle built for
// another distribution, a driver that will not build for the next kernel)
// with both sides named; the probe prints the node's side.
#include "agent/resources/registry.h"
#include "common/strings.h"

namespace clusterctl::agent {

ResourceOutcome AssertResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  CommandSpec probe;
  probe.argv = p["argv"].get<std::vector<std::string>>();  // strings: RunResource types the list as declared
  if (probe.argv.empty()) return outcome.Fail("assert needs a non-empty argv");
  probe.timeout = std::chrono::seconds(p.value("timeout", 120));
  CommandResult result = host.Run(probe, false);
  if (result.exit_code == 0) return outcome;
  std::string said(Trim(result.stderr_data.empty() ? result.stdout_data : result.stderr_data));
  if (said.size() > 2000) said = said.substr(0, 2000) + "...";
  std::string why = p["message"].get<std::string>();
  if (result.timed_out) why += " (the check timed out)";
  if (!said.empty()) why += ": " + said;
  outcome.failed_command = Join(probe.argv, " ");
  return outcome.Fail(why);
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kAssertKind({"assert",
                                            "a precondition (a read-only probe) that fails the step, in "
                                            "plan and deploy, when it does not hold",
                                            {P("argv", T::kStringList, true), P("message", T::kString, true),
                                             P("timeout", T::kInt)},
                                            {}},
                                           AssertResource);

}  // namespace

}  // namespace clusterctl::agent
