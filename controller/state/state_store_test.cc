#include "controller/state/state_store.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "controller/state/schema.h"
#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

int ModeOf(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<int>(st.st_mode & 0777);
}

class LocalProbe final : public FilesystemProbe {
 public:
  Result<FilesystemInfo> Probe(const std::string&) const override { return FilesystemInfo{0xEF53, "", "/"}; }
};

class NfsProbe final : public FilesystemProbe {
 public:
  Result<FilesystemInfo> Probe(const std::string&) const override { return FilesystemInfo{0x6969, "", "/home"}; }
};

}  // namespace

TEST_CASE("opening for writing creates a private state directory with WAL and the current schema") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  StatePaths paths{dir.path() + "/site/.clusterctl"};
  auto store = StateStore::OpenForWriting(paths, {&clock, &probe, "clusterctl test"});
  REQUIRE(store.ok());
  CHECK(ModeOf(paths.dir) == 0700);
  CHECK(ModeOf(paths.secrets()) == 0700);
  CHECK(ModeOf(paths.database()) == 0600);
  CHECK(*(*store)->db().QueryText("PRAGMA journal_mode") == "wal");
  CHECK(*StoredSchemaVersion((*store)->db()) == CurrentSchemaVersion());
  auto hosts = (*store)->ListHosts();
  REQUIRE(hosts.ok());
  CHECK(hosts->empty());
}

TEST_CASE("an existing state directory is checked, never chmod'ed: --state /tmp is refused, not made 0700") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  const std::string shared = dir.path() + "/shared";
  REQUIRE(::mkdir(shared.c_str(), 0777) == 0);
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);
  auto refused = StateStore::OpenForWriting(StatePaths{shared}, {&clock, &probe, "test"});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("is writable by others (mode 1777)") != std::string::npos);
  struct stat st;
  REQUIRE(::stat(shared.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 01777);
  CHECK_FALSE(std::filesystem::exists(shared + "/lock"));
  // A private directory of one's own is used as it is.
  const std::string mine = dir.path() + "/mine";
  REQUIRE(::mkdir(mine.c_str(), 0750) == 0);
  REQUIRE(StateStore::OpenForWriting(StatePaths{mine}, {&clock, &probe, "test"}).ok());
  CHECK(ModeOf(mine) == 0750);
  CHECK(ModeOf(mine + "/secrets") == 0700);
  // A symbolic link is not followed.
  const std::string link = dir.path() + "/link";
  REQUIRE(::symlink(mine.c_str(), link.c_str()) == 0);
  CHECK(StateStore::OpenForWriting(StatePaths{link}, {&clock, &probe, "test"}).status().message().find(
            "is not a directory") != std::string::npos);
}

TEST_CASE("a second writer on the same state is refused while the first holds it") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  StatePaths paths{dir.path()};
  auto first = StateStore::OpenForWriting(paths, {&clock, &probe, "clusterctl deploy a.yaml"});
  REQUIRE(first.ok());
  auto second = StateStore::OpenForWriting(paths, {&clock, &probe, "clusterctl deploy a.yaml"});
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Status::Code::kBusy);
  CHECK(second.status().message().find("the state " + dir.path() + " is held by pid ") == 0);
  first->reset();
  CHECK(StateStore::OpenForWriting(paths, {&clock, &probe, "again"}).ok());
}

TEST_CASE("reading a state that does not exist creates nothing") {
  testing::TempDir dir;
  LocalProbe probe;
  StatePaths paths{dir.path() + "/.clusterctl"};
  auto store = StateStore::OpenForReading(paths, probe);
  CHECK(store.status().code() == Status::Code::kNotFound);
  struct stat st;
  CHECK(::stat(paths.dir.c_str(), &st) != 0);
}

TEST_CASE("a state directory on NFS is refused before anything is created") {
  testing::TempDir dir;
  FakeClock clock;
  NfsProbe probe;
  StatePaths paths{dir.path() + "/.clusterctl"};
  auto store = StateStore::OpenForWriting(paths, {&clock, &probe, "x"});
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().message().find("network file system (NFS)") != std::string::npos);
  struct stat st;
  CHECK(::stat(paths.dir.c_str(), &st) != 0);
}

TEST_CASE("a database from a newer clusterctl is refused, not guessed at") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  StatePaths paths{dir.path()};
  {
    auto store = StateStore::OpenForWriting(paths, {&clock, &probe, "x"});
    REQUIRE(store.ok());
    REQUIRE((*store)->db().Exec("PRAGMA user_version = 99").ok());
  }
  auto again = StateStore::OpenForWriting(paths, {&clock, &probe, "x"});
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().message().find("schema version 99, written by a newer clusterctl") != std::string::npos);
  auto reader = StateStore::OpenForReading(paths, probe);
  REQUIRE_FALSE(reader.ok());
  CHECK(reader.status().message().find("written by a newer clusterctl") != std::string::npos);
}

TEST_CASE("runs left running by a dead process are marked interrupted by the next run") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  StatePaths paths{dir.path()};
  int64_t first_run = 0;
  {
    auto store = StateStore::OpenForWriting(paths, {&clock, &probe, "first"});
    REQUIRE(store.ok());
    first_run = *(*store)->BeginRun("deploy", "clusterctl deploy x");
    // no FinishRun: the process "died"
  }
  auto store = StateStore::OpenForWriting(paths, {&clock, &probe, "second"});
  REQUIRE(store.ok());
  clock.Advance(std::chrono::seconds(5));
  int64_t second_run = *(*store)->BeginRun("deploy", "clusterctl deploy x");
  REQUIRE((*store)->FinishRun(second_run, RunStatus::kOk, {{"changed", 0}}).ok());
  auto runs = (*store)->ListRuns(10);
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 2);
  CHECK(runs->at(1).id == first_run);
  CHECK(runs->at(1).status == RunStatus::kInterrupted);
  CHECK(runs->at(0).status == RunStatus::kOk);
  CHECK(runs->at(0).finished_at.value() == clock.NowMs());
}


namespace {
StoredValidation Stored(const std::string& check, CheckScope scope, const std::string& subject, CheckOutcome result) {
  StoredValidation v;
  v.check = check;
  v.scope = scope;
  v.subject = subject;
  v.result = result;
  return v;
}
}  // namespace

TEST_CASE("latest validations: per node, and per check and subject for the cluster scope") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  auto store = StateStore::OpenForWriting(StatePaths{dir.path() + "/state"}, {&clock, &probe, "test"});
  REQUIRE(store.ok());
  StateStore& s = **store;
  const int64_t first = *s.BeginRun("validate", "validate");
  REQUIRE(s.SaveValidations(first, {Stored("slurm.controller", CheckScope::kCluster, "node01", CheckOutcome::kFail),
                                    Stored("monitoring.targets", CheckScope::kCluster, "node01", CheckOutcome::kFail),
                                    Stored("gpu.count", CheckScope::kNode, "node02", CheckOutcome::kPass)})
              .ok());
  // A later run checked the controller again (now passing) and nothing else of the cluster's.
  const int64_t second = *s.BeginRun("validate", "validate --checks slurm.controller");
  REQUIRE(s.SaveValidations(second, {Stored("slurm.controller", CheckScope::kCluster, "node01", CheckOutcome::kPass)}).ok());

  auto cluster = s.LatestClusterValidations();
  REQUIRE(cluster.ok());
  REQUIRE(cluster->size() == 2);
  CHECK((*cluster)[0].check == "monitoring.targets");  // still the first run's: never checked since
  CHECK((*cluster)[0].result == CheckOutcome::kFail);
  CHECK((*cluster)[0].run_id == first);
  CHECK((*cluster)[1].check == "slurm.controller");
  CHECK((*cluster)[1].result == CheckOutcome::kPass);
  CHECK((*cluster)[1].run_id == second);
  auto nodes = s.LatestValidationPerNode();
  REQUIRE(nodes.ok());
  CHECK(nodes->size() == 1);
  CHECK(nodes->at("node02").front().check == "gpu.count");
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("reachability: the first failed attempt of a row is kept with the last error; a reached host clears it") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  auto store = StateStore::OpenForWriting(StatePaths{dir.path() + "/s"}, {&clock, &probe, "clusterctl test"});
  REQUIRE(store.ok());
  StateStore& state = **store;
  REQUIRE(state.SyncInventoryHosts({{"a", "10.0.0.1"}, {"b", "10.0.0.2"}}).ok());
  auto record = [&](const std::string& name) {
    auto hosts = state.ListHosts();
    REQUIRE(hosts.ok());
    for (const HostRecord& h : *hosts) {
      if (h.name == name) return h;
    }
    FAIL("no record of " << name);
    return HostRecord{};
  };
  REQUIRE(state.RecordReachability({{"a", "refused"}, {"b", "refused"}}).ok());
  const int64_t first = *record("a").unreachable_since;
  clock.Advance(std::chrono::seconds(60));
  REQUIRE(state.RecordReachability({{"a", "timed out"}, {"b", std::nullopt}}).ok());
  CHECK(record("a").unreachable_since == first);
  CHECK(record("a").unreachable_error == "timed out");
  CHECK_FALSE(record("b").unreachable_since);
  CHECK_FALSE(record("b").unreachable_error);
}

}  // namespace clusterctl
