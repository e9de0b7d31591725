#include "controller/state/state_lock.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

// Forks a child that takes the lock, reports through `ready`, then waits for a
// byte on `release` and exits either cleanly (releasing) or abruptly.
pid_t ForkHolder(const std::string& lock_path, int ready_fd, int release_fd, bool die_abruptly) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  auto acquired = StateLock::Acquire(lock_path, LockHolder::Current(1'700'000'000'000, "clusterctl deploy test.yaml"));
  char ok = acquired.ok() ? 'y' : 'n';
  (void)::write(ready_fd, &ok, 1);
  char byte;
  (void)::read(release_fd, &byte, 1);
  if (die_abruptly) ::_exit(0);  // like kill -9: no destructor runs, the record stays
  acquired->lock.reset();
  ::_exit(0);
}

}  // namespace

TEST_CASE("two processes contend for the state lock; the second is told who holds it") {
  testing::TempDir dir;
  const std::string lock_path = dir.path() + "/lock";
  int ready[2], release[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(release) == 0);
  pid_t holder = ForkHolder(lock_path, ready[1], release[0], false);
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  REQUIRE(ok == 'y');

  auto second = StateLock::Acquire(lock_path, LockHolder::Current(1'700'000'100'000, "clusterctl deploy other"));
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Status::Code::kBusy);
  CHECK(second.status().message().find("held by pid " + std::to_string(holder) + " on ") == 0);
  CHECK(second.status().message().find("since 2023-11-14 22:13:20 UTC (clusterctl deploy test.yaml)") !=
        std::string::npos);

  (void)::write(release[1], "x", 1);
  int status = 0;
  ::waitpid(holder, &status, 0);
  auto third = StateLock::Acquire(lock_path, LockHolder::Current(1, "third"));
  REQUIRE(third.ok());
  CHECK_FALSE(third->cleared_stale_holder.has_value());  // released cleanly
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);
}

TEST_CASE("the lock of a holder that died is cleared and its record reported") {
  testing::TempDir dir;
  const std::string lock_path = dir.path() + "/lock";
  int ready[2], release[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(release) == 0);
  pid_t holder = ForkHolder(lock_path, ready[1], release[0], true);
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  (void)::write(release[1], "x", 1);
  int status = 0;
  ::waitpid(holder, &status, 0);

  auto next = StateLock::Acquire(lock_path, LockHolder::Current(1, "next"));
  REQUIRE(next.ok());
  REQUIRE(next->cleared_stale_holder.has_value());
  CHECK(next->cleared_stale_holder->pid == holder);
  CHECK(next->cleared_stale_holder->command == "clusterctl deploy test.yaml");
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);
}

TEST_CASE("LockHolder records round-trip and junk is not a holder") {
  LockHolder h{42, "head01", 1'700'000'000'000, "clusterctl hold x"};
  auto back = LockHolder::Parse(h.Serialize());
  REQUIRE(back);
  CHECK(back->Describe() == "pid 42 on head01 since 2023-11-14 22:13:20 UTC (clusterctl hold x)");
  CHECK_FALSE(LockHolder::Parse("").has_value());
  CHECK_FALSE(LockHolder::Parse("{\"pid\": 0}").has_value());
  CHECK_FALSE(LockHolder::Parse("garbage").has_value());
  // Fields of the wrong type (the review's {"pid":"abc"} aborted every writer).
  CHECK_FALSE(LockHolder::Parse(R"({"pid":"abc"})").has_value());
  CHECK_FALSE(LockHolder::Parse(R"({"pid":1e99})").has_value());
  CHECK_FALSE(LockHolder::Parse(R"({"pid":99999999999})").has_value());
  auto odd = LockHolder::Parse(R"({"pid":7,"host":[1],"started_at":"x","command":null})");
  REQUIRE(odd);
  CHECK(odd->Describe() == "pid 7 on ? since 1970-01-01 00:00:00 UTC (?)");
}

TEST_CASE("a lock file with a record of the wrong types is taken over, not a crash") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/lock";
  std::ofstream(path) << R"({"pid":"abc"})";
  auto acquired = StateLock::Acquire(path, LockHolder{static_cast<int>(::getpid()), "me", 0, "test"});
  REQUIRE(acquired.ok());
  CHECK_FALSE(acquired->cleared_stale_holder.has_value());
}

}  // namespace clusterctl
