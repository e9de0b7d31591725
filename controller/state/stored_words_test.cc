#include "controller/state/stored_words.h"

#include <doctest/doctest.h>

#include "controller/state/row_mapping.h"
#include "controller/state/state_store.h"
#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

class LocalProbe final : public FilesystemProbe {
 public:
  Result<FilesystemInfo> Probe(const std::string&) const override { return FilesystemInfo{0xEF53, "", "/"}; }
};

template <typename E>
void CheckRoundTrip(std::initializer_list<std::pair<E, std::string_view>> words) {
  for (const auto& [value, word] : words) {
    CHECK(StoredWord(value) == word);
    E back{};
    REQUIRE(FromStoredWord(word, back).ok());
    CHECK(back == value);
  }
}

}  // namespace

// The words are docs/state.md's and the schema's CHECK constraints': a state
// written by any clusterctl must keep reading.
TEST_CASE("every outcome enum has its stored word, and the word reads back as the same enum") {
  CheckRoundTrip<RunStatus>({{RunStatus::kRunning, "running"},
                             {RunStatus::kOk, "ok"},
                             {RunStatus::kFailed, "failed"},
                             {RunStatus::kInterrupted, "interrupted"}});
  CheckRoundTrip<StepStatus>({{StepStatus::kOk, "ok"},
                              {StepStatus::kChanged, "changed"},
                              {StepStatus::kFailed, "failed"},
                              {StepStatus::kSkipped, "skipped"},
                              {StepStatus::kWouldChange, "would-change"}});
  CheckRoundTrip<HostStatus>({{HostStatus::kNever, "never"},
                              {HostStatus::kOk, "ok"},
                              {HostStatus::kFailed, "failed"},
                              {HostStatus::kUnreachable, "unreachable"},
                              {HostStatus::kRemoved, "removed"}});
  CheckRoundTrip<CheckOutcome>({{CheckOutcome::kPass, "pass"}, {CheckOutcome::kFail, "fail"}, {CheckOutcome::kSkip, "skip"}});
  CheckRoundTrip<CheckScope>({{CheckScope::kCluster, "cluster"}, {CheckScope::kNode, "node"}, {CheckScope::kPair, "pair"}});
}

TEST_CASE("an unknown stored word is an error naming the column, the word and the known words, and changes nothing") {
  HostStatus status = HostStatus::kOk;
  Status read = FromStoredWord("rebooting", status);
  CHECK(read.code() == Status::Code::kCorruption);
  CHECK(read.message() ==
        "hosts.status is 'rebooting', which this clusterctl does not know (never, ok, failed, unreachable, removed)");
  CHECK(status == HostStatus::kOk);

  CheckOutcome outcome = CheckOutcome::kPass;
  CHECK(FromStoredWord("PASS", outcome).message() ==
        "validations.result is 'PASS', which this clusterctl does not know (pass, fail, skip)");
  CHECK(FromStoredWord(std::string(100, 'x'), outcome).message().find(std::string(40, 'x') + "...'") != std::string::npos);
}

TEST_CASE("the row mapping binds an outcome enum as its word and reads it back; an unknown word fails the query") {
  auto db = SqliteDb::Open(":memory:", SqliteDb::Mode::kReadWriteCreate);
  REQUIRE(db.ok());
  REQUIRE((*db)->Exec("CREATE TABLE t (name TEXT, status TEXT, result TEXT)").ok());
  REQUIRE(ExecuteSql(**db, "INSERT INTO t VALUES (?, ?, ?)", "a", HostStatus::kUnreachable, CheckOutcome::kSkip).ok());
  auto stored = (*db)->QueryText("SELECT status || ' ' || result FROM t");
  REQUIRE(stored.ok());
  CHECK(*stored == "unreachable skip");

  auto read_row = [](const SqliteStatement& row) -> Result<std::pair<HostStatus, CheckOutcome>> {
    std::string name;
    std::pair<HostStatus, CheckOutcome> row_values;
    Status read = ReadColumns(row, name, row_values.first, row_values.second);
    if (!read.ok()) return read.WithContext(name);
    return row_values;
  };
  auto rows = SelectRows(**db, "SELECT name, status, result FROM t", read_row);
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 1);
  CHECK(rows->front().first == HostStatus::kUnreachable);
  CHECK(rows->front().second == CheckOutcome::kSkip);

  REQUIRE((*db)->Exec("INSERT INTO t VALUES ('b', 'ok', 'maybe')").ok());
  rows = SelectRows(**db, "SELECT name, status, result FROM t ORDER BY name", read_row);
  REQUIRE(!rows.ok());
  CHECK(rows.status().code() == Status::Code::kCorruption);
  CHECK(rows.status().message() ==
        "b: validations.result is 'maybe', which this clusterctl does not know (pass, fail, skip)");
}

TEST_CASE("the state's hosts and validations keep every outcome through the schema, and a word it does not know is an "
          "error, not a crash") {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  auto store = StateStore::OpenForWriting(StatePaths{dir.path() + "/state"}, {&clock, &probe, "test"});
  REQUIRE(store.ok());
  StateStore& s = **store;
  const int64_t run = *s.BeginRun("deploy", "deploy");
  const HostStatus recorded[] = {HostStatus::kOk, HostStatus::kFailed, HostStatus::kUnreachable};
  for (HostStatus status : recorded) {
    REQUIRE(s.RecordHostOutcome("node0" + std::string(StoredWord(status)), status, run, std::nullopt).ok());
  }
  REQUIRE(s.SyncInventoryHosts({{"node0never", "10.0.0.9"}}).ok());  // known, never deployed; the others left
  REQUIRE(s.MarkHostRemoved("node0ok", run).ok());
  auto hosts = s.ListHosts();
  REQUIRE(hosts.ok());
  REQUIRE(hosts->size() == 4);
  CHECK((*hosts)[0].status == HostStatus::kFailed);  // ordered by name
  CHECK((*hosts)[1].status == HostStatus::kNever);
  CHECK((*hosts)[2].status == HostStatus::kRemoved);
  CHECK((*hosts)[3].status == HostStatus::kUnreachable);

  StoredValidation v;
  v.check = "gpu.count";
  v.scope = CheckScope::kPair;
  v.subject = "a+b";
  v.result = CheckOutcome::kSkip;
  REQUIRE(s.SaveValidations(run, {v}).ok());
  auto validations = s.ValidationsOfRun(run);
  REQUIRE(validations.ok());
  REQUIRE(validations->size() == 1);
  CHECK(validations->front().scope == CheckScope::kPair);
  CHECK(validations->front().result == CheckOutcome::kSkip);

  // A word the schema's CHECK constraint would refuse: a state edited by hand.
  REQUIRE(s.db().Exec("PRAGMA ignore_check_constraints = ON").ok());
  REQUIRE(s.db().Exec("UPDATE hosts SET status = 'rebooting' WHERE name = 'node0failed'").ok());
  REQUIRE(s.db().Exec("UPDATE validations SET result = 'flaky'").ok());
  hosts = s.ListHosts();
  REQUIRE(!hosts.ok());
  CHECK(hosts.status().message() == "host node0failed: hosts.status is 'rebooting', which this clusterctl does not "
                                    "know (never, ok, failed, unreachable, removed)");
  validations = s.ValidationsOfRun(run);
  REQUIRE(!validations.ok());
  CHECK(validations.status().message().find("validations.result is 'flaky'") != std::string::npos);
  CHECK(s.LatestValidationPerNode().ok());  // node scope only; this row is a pair's
  CHECK(!s.LatestClusterValidations().ok());
}

}  // namespace clusterctl
