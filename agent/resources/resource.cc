#include "agent/resources/resource.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>

#include "agent/resources/schema.h"
#include "common/strings.h"

namespace clusterctl::agent {

CommandResult ResourceHost::Run(const CommandSpec& spec, bool mutating) {
  CommandResult result = RunCommand(spec);
  log_.push_back({spec.argv, mutating, result.exit_code});
  return result;
}

bool ResourceHost::RanMutatingCommand() const {
  for (const ExecutedCommand& c : log_) {
    if (c.mutating) return true;
  }
  return false;
}

bool RunOrFail(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv, bool mutating,
               const std::string& stdin_data, std::chrono::minutes limit) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.stdin_data = stdin_data;
  spec.timeout = limit;
  CommandResult result = host.Run(spec, mutating);
  if (result.exit_code == 0) return true;
  outcome.timed_out = result.timed_out;
  outcome.Fail(spec.argv[0] + (result.timed_out ? " did not finish in " + std::to_string(limit.count()) + " minutes"
                               : result.started ? " exited with status " + std::to_string(result.exit_code)
                                                : " could not be started"));
  outcome.failed_command = Join(spec.argv, " ");
  std::string output = result.stdout_data + result.stderr_data;
  outcome.output = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  return false;
}

ResourceOutcome RunResource(const ResourceRequest& request, ResourceHost& host) {
  static const std::map<std::string, ResourceFunction> kinds = {
      {"file", FileResource},         {"directory", DirectoryResource}, {"symlink", SymlinkResource},
      {"line", LineResource},         {"block", BlockResource},         {"package", PackageResource},
      {"repository", RepositoryResource}, {"service", ServiceResource}, {"kernel_module", KernelModuleResource},
      {"sysctl", SysctlResource},     {"mount", MountResource},         {"user", UserResource},
      {"group", GroupResource},       {"command", CommandResource},     {"copy", CopyResource},
  };
  ResourceOutcome outcome;
  auto it = kinds.find(request.kind);
  const resources::ResourceSpec* spec = resources::FindResourceSpec(request.kind);
  if (it == kinds.end() || !spec) return outcome.Fail("unknown resource kind '" + request.kind + "'");
  // Controller-side parameters never reach the agent; accept only the rest.
  nlohmann::json agent_params = request.params;
  for (const auto& p : spec->params) {
    if (p.controller_side) agent_params.erase(p.name);
  }
  resources::ResourceSpec agent_spec = *spec;
  agent_spec.one_of.clear();
  std::vector<std::string> problems = resources::ValidateParams(agent_spec, agent_params);
  if (!problems.empty()) return outcome.Fail(Join(problems, "; "));
  try {
    return it->second(request, host);
  } catch (const std::exception& e) {
    return outcome.Fail(std::string("internal error in ") + request.kind + ": " + e.what());
  }
}

Status ScheduleReboot(int delay_ms) {
  pid_t child = ::fork();
  if (child < 0) return Status::IoError("fork failed");
  if (child == 0) {
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    ::signal(SIGHUP, SIG_IGN);
    for (int fd = 0; fd < 1024; ++fd) ::close(fd);
    ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
    ::execl("/bin/systemctl", "systemctl", "reboot", static_cast<char*>(nullptr));
    ::execl("/sbin/reboot", "reboot", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return Status::Ok();
}

}  // namespace clusterctl::agent
