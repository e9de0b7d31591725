// service: a systemd unit running/stopped and enabled/disabled, or restarted
// / reloaded (as handlers). Reports the unit's InvocationID before and after,
// so the controller can tell whether an owed restart already happened.
#include <algorithm>
#include <filesystem>
#include <map>

#include "agent/resources/names.h"
#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

std::map<std::string, std::string> ShowUnit(const std::string& name, ResourceHost& host) {
  CommandSpec show;
  show.argv = {"systemctl", "show", "-p", "LoadState", "-p", "ActiveState", "-p", "UnitFileState",
               "-p", "InvocationID", "-p", "NeedDaemonReload", "-p", "DropInPaths", "-p", "Id",
               "-p", "ConditionResult", "-p", "Result", "--", name};
  CommandResult r = host.Run(show, false);
  std::map<std::string, std::string> properties;
  for (const std::string& line : Split(r.stdout_data, '\n')) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) properties[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return properties;
}

// systemd notices changed unit files (NeedDaemonReload) but not a drop-in
// file in a directory it did not load from: compare the drop-ins on disk
// with the ones it loaded.
bool DropInsChanged(std::map<std::string, std::string>& unit) {
  const std::string& id = unit["Id"];
  if (id.empty()) return false;
  std::vector<std::string> loaded = Split(unit["DropInPaths"], ' ');
  for (const char* base : {"/etc/systemd/system/", "/run/systemd/system/"}) {
    const std::string dir = std::string(base) + id + ".d";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".conf") continue;
      if (std::find(loaded.begin(), loaded.end(), entry.path().string()) == loaded.end()) return true;
    }
  }
  for (const std::string& path : loaded) {
    if (!path.empty() && !StatPath(path).exists) return true;
  }
  return false;
}

// After start/restart: an unmet condition or a quick failure is a failure,
// not a success (systemctl start returns 0 for a skipped unit).
void VerifyActive(const std::string& name, ResourceHost& host, ResourceOutcome& outcome) {
  std::map<std::string, std::string> after = ShowUnit(name, host);
  const std::string active = after["ActiveState"];
  if (active == "active" || active == "activating" || active == "reloading") return;
  CommandSpec status;
  status.argv = {"systemctl", "status", "--no-pager", "-n", "20", "--", name};
  CommandResult r = host.Run(status, false);
  outcome.Fail(after["ConditionResult"] == "no" ? "unit " + name + " did not start: a start condition is not met"
                                               : "unit " + name + " is " + active + " after starting (" + after["Result"] + ")");
  outcome.failed_command = "systemctl start " + name;
  outcome.output = r.stdout_data.size() > 4000 ? r.stdout_data.substr(r.stdout_data.size() - 4000) : r.stdout_data;
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
  outcome.unit = agent_protocol::UnitState{unit["InvocationID"], unit["ActiveState"], ""};
  if (unit["LoadState"] == "not-found" || unit["LoadState"].empty()) {
    if (!request.apply) {
      // A plan on a fresh node: an earlier step (a package) installs the unit.
      outcome.Differs("unit " + name + " does not exist yet");
      return outcome;
    }
    return outcome.Fail("unit " + name + " not found");
  }
  if (p.value("daemon_reload", false) && (unit["NeedDaemonReload"] == "yes" || DropInsChanged(unit))) {
    outcome.Differs("unit files changed on disk (daemon-reload)");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "daemon-reload"}, true)) return outcome;
  }
  if (p.contains("enabled")) {
    bool want = p["enabled"].get<bool>();
    bool is = IsEnabled(unit["UnitFileState"]);
    if (want != is) {
      outcome.Differs(std::string(want ? "not enabled" : "enabled") + " (" + unit["UnitFileState"] + ")");
      if (request.apply && !RunOrFail(host, outcome, {"systemctl", want ? "enable" : "disable", "--", name}, true)) {
        return outcome;
      }
    }
  }
  const std::string state = p.value("state", std::string());
  const std::string active = unit["ActiveState"];
  // A unit that hit its start rate limit refuses every start until
  // reset-failed; a deploy asking for it to run means to start it anyway.
  const bool wants_start = state == "running" || state == "restarted" || state == "reloaded";
  if (request.apply && wants_start && unit["Result"] == "start-limit-hit" &&
      !RunOrFail(host, outcome, {"systemctl", "reset-failed", "--", name}, true)) {
    return outcome;
  }
  const bool running = active == "active" || active == "activating" || active == "reloading";
  if (state == "running" && !running) {
    outcome.Differs("not running (" + active + ")");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "start", "--", name}, true)) return outcome;
    if (request.apply) VerifyActive(name, host, outcome);
  } else if (state == "stopped" && running) {
    outcome.Differs("running");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "stop", "--", name}, true)) return outcome;
  } else if (state == "restarted") {
    outcome.Differs("restart");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "restart", "--", name}, true)) return outcome;
    if (request.apply) VerifyActive(name, host, outcome);
  } else if (state == "reloaded") {
    outcome.Differs("reload");
    if (request.apply && !RunOrFail(host, outcome, {"systemctl", "reload-or-restart", "--", name}, true)) return outcome;
  }
  if (request.apply && outcome.changed) outcome.unit->invocation_after = ShowUnit(name, host)["InvocationID"];
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::P;
using resources::Refusing;
using T = resources::ParamType;

// The name's syntax is checked before any command (RunResource), and "--"
// ends systemctl's options before it all the same.
const ResourceKindRegistration kServiceKind(
    {"service", "a systemd unit: running/stopped, enabled/disabled, restarted/reloaded (handlers)",
     {Refusing(P("name", T::kString, true), UnitNameRefusal), P("state", T::kString, false, {"running", "stopped", "restarted", "reloaded"}),
      P("enabled", T::kBool), P("daemon_reload", T::kBool)},
     {}},
    ServiceResource);

}  // namespace

}  // namespace clusterctl::agent
