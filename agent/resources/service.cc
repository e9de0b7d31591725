// service: a systemd unit running/stopped and enabled/disabled, or restarted
// / reloaded (as handlers). Reports the unit's InvocationID before and after,
// so the controller can tell whether an owed restart already happened.
#include <map>

#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

std::map<std::string, std::string> ShowUnit(const std::string& name, ResourceHost& host) {
  CommandSpec show;
  show.argv = {"systemctl", "show", name, "-p", "LoadState", "-p", "ActiveState", "-p", "UnitFileState",
               "-p", "InvocationID", "-p", "NeedDaemonReload"};
  CommandResult r = host.Run(show, false);
  std::map<std::string, std::string> properties;
  for (const std::string& line : Split(r.stdout_data, '\n')) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) properties[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return properties;
}

bool IsEnabled(const std::string& unit_file_state) {
  return unit_file_state == "enabled" || unit_file_state == "enabled-runtime" || unit_file_state == "static" ||
         unit_file_state == "alias" || unit_file_state == "indirect" || unit_file_state == "generated";
}

}  // namespace

ResourceOutcome ServiceResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string name = p["name"].get<std::string>();
  std::map<std::string, std::string> unit = ShowUnit(name, host);
  outcome.extra["invocation_before"] = unit["InvocationID"];
  if (unit["LoadState"] == "not-found" || unit["LoadState"].empty()) {
    if (!request.apply) {
      // A plan on a fresh node: an earlier step (a package) installs the unit.
      outcome.Differs("unit " + name + " does not exist yet");
      return outcome;
    }
    return outcome.Fail("unit " + name + " not found");
  }
  if (p.value("daemon_reload", false) && unit["NeedDaemonReload"] == "yes") {
    outcome.Differs("unit files changed on disk (daemon-reload)");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "daemon-reload"}, true)) return outcome;
  }
  if (p.contains("enabled")) {
    bool want = p["enabled"].get<bool>();
    bool is = IsEnabled(unit["UnitFileState"]);
    if (want != is) {
      outcome.Differs(std::string(want ? "not enabled" : "enabled") + " (" + unit["UnitFileState"] + ")");
      if (request.apply && !RunOrFail(host, outcome, {"systemctl", want ? "enable" : "disable", name}, true)) {
        return outcome;
      }
    }
  }
  const std::string state = p.value("state", std::string());
  const std::string active = unit["ActiveState"];
  const bool running = active == "active" || active == "activating" || active == "reloading";
  if (state == "running" && !running) {
    outcome.Differs("not running (" + active + ")");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "start", name}, true)) return outcome;
  } else if (state == "stopped" && running) {
    outcome.Differs("running");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "stop", name}, true)) return outcome;
  } else if (state == "restarted") {
    outcome.Differs("restart");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "restart", name}, true)) return outcome;
  } else if (state == "reloaded") {
    outcome.Differs("reload");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "reload-or-restart", name}, true)) return outcome;
  }
  if (request.apply && outcome.changed) outcome.extra["invocation_after"] = ShowUnit(name, host)["InvocationID"];
  return outcome;
}

}  // namespace clusterctl::agent
