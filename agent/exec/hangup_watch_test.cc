// The agent stops what it runs when the controller's session closes: a pipe
// (what sshd gives a session's stdin) whose writer closes, a socket whose
// peer shuts down its writing side; pending frames never count as a hang-up.
#include "agent/exec/hangup_watch.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <doctest/doctest.h>

#include "agent/exec/run_command.h"

namespace clusterctl::agent {
namespace {

// Close-on-exec, as the agent's own stdin is to its commands (they get their
// own): a command holding the writer would keep the "controller" alive.
struct Pipe {
  int ends[2] = {-1, -1};
  Pipe() { REQUIRE(::pipe2(ends, O_CLOEXEC) == 0); }
  ~Pipe() {
    for (int fd : ends) {
      if (fd >= 0) ::close(fd);
    }
  }
  void CloseWriter() {
    ::close(ends[1]);
    ends[1] = -1;
  }
};

CommandSpec LongSleep(const HangupWatch& hangup) {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "sleep 30 & sleep 30"};
  spec.kill_grace = std::chrono::milliseconds(300);
  spec.hangup = hangup;
  return spec;
}

}  // namespace

TEST_CASE("HangupWatch: no descriptor never reports; an open pipe with data pending is no hang-up") {
  CHECK_FALSE(HangupWatch().Reported());
  Pipe controller;
  HangupWatch watch(controller.ends[0]);
  CHECK_FALSE(watch.Reported());
  REQUIRE(::write(controller.ends[1], "frame", 5) == 5);
  CHECK_FALSE(watch.Reported());
  char buffer[8] = {};
  CHECK(::read(controller.ends[0], buffer, sizeof buffer) == 5);  // the watch did not consume it
  controller.CloseWriter();
  CHECK(watch.Reported());
}

TEST_CASE("RunCommand stops a command when the controller's pipe closes, as at its time limit") {
  Pipe controller;
  std::thread closer([&controller] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    controller.CloseWriter();
  });
  CommandResult r = RunCommand(LongSleep(HangupWatch(controller.ends[0])));
  closer.join();
  CHECK(r.controller_gone);
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == 15);
  CHECK(r.duration < std::chrono::seconds(5));
}

TEST_CASE("RunCommand stops a command when the controller's socket peer shuts down its writing side") {
  int sockets[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) == 0);
  std::thread closer([&sockets] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::shutdown(sockets[1], SHUT_WR);
  });
  CommandResult r = RunCommand(LongSleep(HangupWatch(sockets[0])));
  closer.join();
  CHECK(r.controller_gone);
  CHECK(r.duration < std::chrono::seconds(5));
  ::close(sockets[0]);
  ::close(sockets[1]);
}

TEST_CASE("RunCommand does not start a command once the controller is gone; a live controller changes nothing") {
  Pipe gone;
  gone.CloseWriter();
  CommandResult refused = RunCommand(LongSleep(HangupWatch(gone.ends[0])));
  CHECK_FALSE(refused.started);
  CHECK(refused.controller_gone);
  CHECK(refused.stderr_data.find("the controller's session has closed") != std::string::npos);

  Pipe live;
  REQUIRE(::write(live.ends[1], "next request", 12) == 12);
  CommandSpec spec;
  spec.argv = {"sh", "-c", "sleep 0.2; echo done"};
  spec.hangup = HangupWatch(live.ends[0]);
  CommandResult r = RunCommand(spec);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_data == "done\n");
  CHECK_FALSE(r.controller_gone);
}

}  // namespace clusterctl::agent
