#include <doctest/doctest.h>

#include "controller/validate/validation_run.h"

namespace clusterctl {

TEST_CASE("--checks: names, prefixes, exclusions; unknown names refused with a suggestion") {
  auto all = CheckSelection::Parse({});
  REQUIRE(all.ok());
  CHECK(all->Has("gpu.ecc"));
  auto slurm = CheckSelection::Parse({"slurm", "clock.offset"});
  REQUIRE(slurm.ok());
  CHECK(slurm->Has("slurm.node"));
  CHECK(slurm->Has("clock.offset"));
  CHECK_FALSE(slurm->Has("gpu.ecc"));
  CHECK_FALSE(slurm->Has("munge.decode"));
  auto without = CheckSelection::Parse({"!nccl", "!gpu.xid"});
  REQUIRE(without.ok());
  CHECK(without->Has("gpu.ecc"));
  CHECK_FALSE(without->Has("gpu.xid"));
  CHECK_FALSE(without->Has("nccl.cluster"));
  CHECK(without->HasAny({"nccl.node", "reachable"}));
  auto typo = CheckSelection::Parse({"slurm.nodes"});
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.status().message().find("did you mean 'slurm.node'?") != std::string::npos);
  CHECK_FALSE(CheckSelection::Parse({"!sl"}).ok());
}

}  // namespace clusterctl
