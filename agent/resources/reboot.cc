// reboot: carried out by the controller (a reboot step owed by an intent;
// controller/engine/kinds/reboot_kind.cc), which asks the agent to schedule it
// and waits for a new boot id. The agent registers only its parameters.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/resources/registry.h"

namespace clusterctl::agent {

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

namespace {
using resources::P;
using resources::Used;
using T = resources::ParamType;

const ResourceKindRegistration kRebootKind(
    {"reboot", "reboot the node and wait for it to come back (a new boot id)",
     {P("reason", T::kString), P("timeout", T::kInt), Used(P("after", T::kStringList), resources::ParamUse::kEarlierSteps),
      // The host's reboot_power_cycle_attempts, planned in by the controller.
      resources::Internal("power_cycle_attempts", T::kInt)},
     {}},
    nullptr);

}  // namespace

}  // namespace clusterctl::agent
