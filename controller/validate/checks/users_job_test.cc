// users.job's cluster phase on a FakeClusterRun: the job it submits as the
// first directory user, its verdict on the UID the job printed, and every
// way it ends without one.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

struct UsersJobBench : testing::FakeClusterRun {
  UsersJobBench() {
    usable = {"node02", "node03"};
    Node("login01");
    vars["login01"] = {{"directory_users", {{{"name", "alice"}, {"uid", 5001}, {"gid", 5001}},
                                            {{"name", "bob"}, {"uid", 5002}, {"gid", 5002}}}}};
    Printing("5001\n");
  }
  void Printing(const std::string& text, int exit_code = 0) {
    answer = [text, exit_code](const HostCommand&) {
      ToolOutput out;
      out.out = text;
      out.exit_code = exit_code;
      return out;
    };
  }
  CheckResult Only() {
    const std::vector<CheckResult>& added = Phase("users.job");
    REQUIRE(added.size() == 1);
    CHECK(added.front().check == "users.job");
    CHECK(added.front().subject == "testbed");
    return added.front();
  }
};

TEST_CASE("users.job runs id -u as the first directory user on the first usable node") {
  UsersJobBench run;
  CheckResult r = run.Only();
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured == "uid 5001");
  CHECK(r.threshold == "uid 5001");
  CHECK(r.detail == "srun as alice on node02: id -u in the job is the directory's UID");
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran.front().host == "login01");
  CHECK(run.ran.front().timeout_s == 180);
  CHECK(run.ran.front().argv == Argv{"runuser", "-u", "alice", "--", "srun", "-N", "1", "-w", "node02", "--immediate=60",
                                     "--time=5", "-J", "clusterctl-validate", "id", "-u"});
}

TEST_CASE("users.job fails a job that ran as another UID or failed") {
  UsersJobBench run;
  SUBCASE("another UID") {
    run.Printing("1000\n");
    CheckResult r = run.Only();
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "srun as alice on node02: the job ran as uid 1000, not the directory's 5001");
    CHECK(r.measured == "1000");
  }
  SUBCASE("the job failed") {
    run.Printing("", 1);
    CheckResult r = run.Only();
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "srun as alice on node02 failed (exit 1)");
  }
}

TEST_CASE("users.job without a directory user, a usable node or time runs nothing and says why") {
  UsersJobBench run;
  SUBCASE("no directory_users") {
    run.vars.clear();
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kSkip);
    CHECK(r.detail == "no directory_users in the inventory");
  }
  SUBCASE("the first user's UID is not a number") {
    run.vars["login01"]["directory_users"][0]["uid"] = "5001";
    CHECK(run.Only().detail == "no directory_users in the inventory");
  }
  SUBCASE("no usable compute node") {
    run.usable.clear();
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == kNoUsableComputeNode);
  }
  SUBCASE("the deadline passed first") {
    run.deadline_passed = true;
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "not run: the validation's deadline (900 s) passed first");
  }
  if (!run.deadline_passed) CHECK(run.ran.empty());
}

}  // namespace
}  // namespace clusterctl
