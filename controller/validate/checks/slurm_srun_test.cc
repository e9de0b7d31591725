// slurm.srun's cluster phase on a FakeClusterRun: the job it submits, its
// verdict on what the tasks printed, and every way it ends without one.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

// Three usable compute nodes (node04 is not), every task printing its name.
struct SrunBench : testing::FakeClusterRun {
  SrunBench() {
    usable = {"node01", "node02", "node03"};
    unusable = {{"node04", "slurm.node failed"}};
    answer = [](const HostCommand&) {
      ToolOutput out;
      out.out = "0: node01\n1: node02\n2: node03\n";
      return out;
    };
  }
  CheckResult Only() {
    const std::vector<CheckResult>& added = Phase("slurm.srun");
    REQUIRE(added.size() == 1);
    CHECK(added.front().check == "slurm.srun");
    CHECK(added.front().subject == "testbed");
    return added.front();
  }
};

ToolOutput Printed(const std::string& out, int exit_code, const std::string& err = "", bool timed_out = false) {
  ToolOutput o;
  o.out = out;
  o.err = err;
  o.exit_code = exit_code;
  o.timed_out = timed_out;
  return o;
}

TEST_CASE("slurm.srun runs hostname on every usable node from the submit host and names the nodes left out") {
  SrunBench run;
  CheckResult r = run.Only();
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  REQUIRE(run.ran.size() == 1);
  CHECK(run.ran.front().host == "login01");
  CHECK(run.ran.front().timeout_s == 180);
  CHECK(run.ran.front().argv == Argv{"srun", "-N", "3", "-w", "node01,node02,node03", "--ntasks-per-node=1",
                                     "--immediate=60", "--time=5", "-J", "clusterctl-validate", "-l", "hostname"});
  CHECK(r.measured == "3/3 nodes");
  CHECK(r.threshold == "all 3");
  CHECK(r.detail == "srun -N3 hostname on node[01-03]; left out: node04 (slurm.node failed)");
}

TEST_CASE("slurm.srun fails naming the node srun's errors blame, else the nodes that did not answer") {
  SrunBench run;
  SUBCASE("named in an error line") {
    run.answer = [](const HostCommand&) {
      return Printed("0: node01\n1: node02\n", 1, "srun: error: node03: task 2: Exited with exit code 1");
    };
    CheckResult r = run.Only();
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "srun across node[01-03] failed on node03 (exit 1)");
    CHECK(r.measured == "2/3 nodes");
  }
  SUBCASE("exit 0 but a task missing: the silent node") {
    run.answer = [](const HostCommand&) { return Printed("0: node01\n2: node03\n", 0); };
    CheckResult r = run.Only();
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "srun across node[01-03] failed on node02 (exit 0)");
  }
  SUBCASE("a name inside a longer word is not blamed") {
    run.answer = [](const HostCommand&) { return Printed("", 1, "srun: error: node033 is down\n"); };
    CHECK(run.Only().detail == "srun across node[01-03] failed on node[01-03] (exit 1)");
  }
}

TEST_CASE("slurm.srun: a job that waited for resources until stopped names the limit it was stopped at") {
  SrunBench run;
  run.seconds_left = 120;  // the deadline cuts the 180 s limit
  run.answer = [](const HostCommand&) {
    return Printed("", -1, "srun: job 12 queued and waiting for resources", true);
  };
  CheckResult r = run.Only();
  REQUIRE(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "srun across node[01-03] never started: its job waited for resources until srun was stopped "
                    "after 120 s (the nodes are busy?)");
  CHECK(r.measured == "0/3 nodes");
}

TEST_CASE("slurm.srun without a usable node or time runs nothing and says why") {
  SUBCASE("no usable compute node") {
    SrunBench run;
    run.usable.clear();
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == kNoUsableComputeNode);
    CHECK(run.ran.empty());
  }
  SUBCASE("the deadline passed first") {
    SrunBench run;
    run.deadline_passed = true;
    CheckResult r = run.Only();
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "not run: the validation's deadline (900 s) passed first");
  }
}

}  // namespace
}  // namespace clusterctl
