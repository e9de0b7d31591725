// The guard before power off/cycle/reset: Slurm's jobs and drains read,
// the refusals naming the jobs.
#include "controller/power/slurm_guard.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("a node running jobs is refused unless drained; the refusal names the jobs") {
  // squeue -h -o '%A|%u|%N|%j' and sinfo -h -N -o '%N|%t' as Slurm 22.05 prints them.
  auto jobs = ParseSqueueJobs("101|alice|node[02-03]|train|gpt\n102|bob|node03|eval\n103|carol|node04|prep\n");
  REQUIRE(jobs.ok());
  REQUIRE(jobs->size() == 3);
  CHECK((*jobs)[0].nodes == std::vector<std::string>{"node02", "node03"});
  CHECK((*jobs)[0].name == "train|gpt");
  auto drained = ParseDrainedNodes("node01|idle\nnode02|mix\nnode03|mix\nnode04|drng\nnode05|drain*\n");
  REQUIRE(drained.ok());
  CHECK(*drained == std::vector<std::string>{"node04", "node05"});

  auto refusals = PowerRefusals({"node01", "node03", "node04"}, *jobs, *drained);
  REQUIRE(refusals.size() == 1);
  CHECK(refusals["node03"] ==
        "Slurm runs jobs 101 (alice: train|gpt), 102 (bob: eval) on node03, which is not drained: drain it first or "
        "give --force");
}

TEST_CASE("Slurm output that cannot be read is an error, never no jobs") {
  CHECK_FALSE(ParseSqueueJobs("101 alice node03 train\n").ok());
  CHECK_FALSE(ParseSqueueJobs("101|alice|node[03|x\n").ok());
  CHECK_FALSE(ParseDrainedNodes("node03 idle\n").ok());
  CHECK(ParseSqueueJobs("").ok());
}

TEST_CASE("the Slurm queries are argument vectors naming the nodes") {
  CHECK(SqueueArgv({"node02", "node03"}) == std::vector<std::string>{"squeue", "-h", "-t", "running,suspended,completing",
                                                                      "-w", "node02,node03", "-o", "%A|%u|%N|%j"});
  CHECK(SinfoArgv({"node03"}) == std::vector<std::string>{"sinfo", "-h", "-N", "-n", "node03", "-o", "%N|%t"});
}

}  // namespace clusterctl
