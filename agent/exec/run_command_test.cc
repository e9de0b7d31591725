#include "agent/exec/run_command.h"

#include <dirent.h>

#include <cerrno>
#include <cstring>

#include <doctest/doctest.h>

namespace clusterctl::agent {

TEST_CASE("RunCommand runs an argument vector without a shell") {
  CommandSpec spec;
  spec.argv = {"printf", "%s|%s", "a b", "$(id)"};
  CommandResult r = RunCommand(spec);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_data == "a b|$(id)");
}

TEST_CASE("RunCommand feeds stdin, separates stderr, reports exit codes") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "cat; echo oops >&2; exit 3"};
  spec.stdin_data = "hello";
  CommandResult r = RunCommand(spec);
  CHECK(r.exit_code == 3);
  CHECK(r.stdout_data == "hello");
  CHECK(r.stderr_data == "oops\n");
}

TEST_CASE("RunCommand kills the process group at the timeout") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "sleep 30 & sleep 30"};
  spec.timeout = std::chrono::milliseconds(300);
  CommandResult r = RunCommand(spec);
  CHECK(r.timed_out);
  CHECK(r.signal == 15);
  CHECK(r.duration < std::chrono::seconds(5));
}

TEST_CASE("RunCommand's time limit holds when a child leaves the process group (the review's setsid sleep)") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "setsid sleep 12 & echo started"};
  spec.timeout = std::chrono::milliseconds(500);
  spec.kill_grace = std::chrono::milliseconds(200);
  CommandResult r = RunCommand(spec);
  CHECK(r.timed_out);
  CHECK(r.stdout_data == "started\n");
  CHECK(r.duration < std::chrono::seconds(5));
  // The escaped sleep was killed: nothing is left holding the output.
  CommandSpec look;
  look.argv = {"sh", "-c", "pgrep -x -f 'sleep 12' || true"};
  CHECK(RunCommand(look).stdout_data.empty());
}

TEST_CASE("RunCommand kills a command that ignores SIGTERM after closing its outputs") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "exec >/dev/null 2>&1; trap '' TERM; while :; do sleep 1; done"};
  spec.timeout = std::chrono::milliseconds(300);
  spec.kill_grace = std::chrono::milliseconds(300);
  CommandResult r = RunCommand(spec);
  CHECK(r.timed_out);
  CHECK(r.signal == 9);
  CHECK(r.duration < std::chrono::seconds(5));
}

TEST_CASE("RunCommand reports a missing program as not started, exit 127") {
  CommandSpec spec;
  spec.argv = {"/nonexistent/program"};
  CommandResult r = RunCommand(spec);
  CHECK_FALSE(r.started);
  CHECK(r.exit_code == 127);
  CHECK(r.stderr_data.find("No such file") != std::string::npos);
}

namespace {

int OpenDescriptors() {
  int count = 0;
  DIR* fds = ::opendir("/proc/self/fd");
  while (fds && ::readdir(fds)) ++count;
  if (fds) ::closedir(fds);
  return count;
}

}  // namespace

TEST_CASE("RunCommand reports a fork that fails as a command not started, with the error (issue 31)") {
  // Given a node that cannot create another process (fork returns -1, EAGAIN)
  CommandSpec spec;
  spec.argv = {"true"};
  const int descriptors_before = OpenDescriptors();
  // When a command is run
  CommandResult r = RunCommand(spec, []() -> pid_t {
    errno = EAGAIN;
    return -1;
  });
  // Then it failed, says why, and left no pipe open (nothing was waited for
  // or signalled: there is no process).
  CHECK_FALSE(r.started);
  CHECK(r.exit_code == 127);
  CHECK(r.stdout_data.empty());
  CHECK(r.stderr_data == std::string("true could not be started: fork: ") + std::strerror(EAGAIN));
  CHECK_FALSE(r.timed_out);
  CHECK(OpenDescriptors() == descriptors_before);
}

TEST_CASE("RunCommand caps output and flags the truncation") {
  CommandSpec spec;
  spec.argv = {"head", "-c", "100000", "/dev/zero"};
  spec.output_limit = 1000;
  CommandResult r = RunCommand(spec);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_data.size() == 1000);
  CHECK(r.truncated);
}

TEST_CASE("RunCommand starts from a clean environment") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "echo \"$LANG $DEBIAN_FRONTEND $X\""};
  spec.env = {{"X", "y"}};
  CommandResult r = RunCommand(spec);
  CHECK(r.stdout_data == "C.UTF-8 noninteractive y\n");
}

}  // namespace clusterctl::agent
