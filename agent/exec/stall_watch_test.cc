#include "agent/exec/stall_watch.h"


#include <doctest/doctest.h>

#include "agent/exec/run_command.h"

namespace clusterctl::agent {
namespace {

using std::chrono::milliseconds;

StallWatch Watch(milliseconds window, std::vector<std::string> ends_at = {}) {
  StallWatch w;
  w.window = window;
  w.ends_at = std::move(ends_at);
  return w;
}

}  // namespace

TEST_CASE("StallTracker: output is progress; quiet past the window is a stall") {
  const auto t0 = StallTracker::Clock::now();
  StallWatch w = Watch(milliseconds(1000));
  StallTracker t(w, t0);
  CHECK_FALSE(t.Stalled("", t0 + milliseconds(900)));
  CHECK_FALSE(t.Stalled("Get:1 http://deb.debian.org", t0 + milliseconds(950)));
  CHECK_FALSE(t.Stalled("", t0 + milliseconds(1900)));
  CHECK(t.Stalled("", t0 + milliseconds(1950)));
  CHECK(t.Stalled("late output", t0 + milliseconds(2000)));  // a stall stays a stall
}

TEST_CASE("StallTracker: a growing progress count is progress without output; an unchanged one is not") {
  const auto t0 = StallTracker::Clock::now();
  uint64_t bytes = 0;
  StallWatch w = Watch(milliseconds(3000));
  w.progress = [&bytes] { return bytes; };
  StallTracker t(w, t0);
  for (int s = 1; s <= 10; ++s) {
    bytes += 4096;  // one large file arriving
    CHECK_FALSE(t.Stalled("", t0 + std::chrono::seconds(s)));
  }
  CHECK_FALSE(t.Stalled("", t0 + milliseconds(12'500)));
  CHECK(t.Stalled("", t0 + milliseconds(13'100)));
}

TEST_CASE("StallTracker: an end marker ends the watch, also when split across two reads") {
  const auto t0 = StallTracker::Clock::now();
  StallWatch w = Watch(milliseconds(1000), {"Setting up "});
  StallTracker t(w, t0);
  CHECK_FALSE(t.Stalled("Unpacking foo ...\nSetti", t0 + milliseconds(100)));
  CHECK_FALSE(t.Stalled("ng up foo (1.0) ...\n", t0 + milliseconds(200)));
  CHECK_FALSE(t.Stalled("", t0 + std::chrono::minutes(10)));  // a silent maintainer script
}

TEST_CASE("StallTracker: no window, no watch") {
  const auto t0 = StallTracker::Clock::now();
  StallWatch w;
  StallTracker t(w, t0);
  CHECK_FALSE(t.Stalled("", t0 + std::chrono::hours(1)));
}

TEST_CASE("RunCommand stops a command that goes quiet, long before its time limit, and says it stalled") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "echo Get:1; sleep 30"};
  spec.timeout = std::chrono::seconds(60);
  spec.kill_grace = milliseconds(200);
  spec.stall = Watch(milliseconds(700));
  CommandResult r = RunCommand(spec);
  CHECK(r.stalled);
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == 15);
  CHECK(r.stdout_data == "Get:1\n");
  CHECK(r.duration < std::chrono::seconds(5));
}

TEST_CASE("RunCommand lets a command that keeps writing, or that passed an end marker, run on") {
  CommandSpec busy;
  busy.argv = {"sh", "-c", "for i in 1 2 3 4 5 6; do echo Get:$i; sleep 0.2; done"};
  busy.stall = Watch(milliseconds(700));
  CommandResult r = RunCommand(busy);
  CHECK_FALSE(r.stalled);
  CHECK(r.exit_code == 0);

  CommandSpec dpkg;
  dpkg.argv = {"sh", "-c", "echo 'Setting up x (1) ...' >&2; sleep 1.5; echo done"};
  dpkg.stall = Watch(milliseconds(500), {"Setting up "});
  r = RunCommand(dpkg);
  CHECK_FALSE(r.stalled);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_data == "done\n");
}

}  // namespace clusterctl::agent
