// A run's -e/--extra-vars are kept with it (schema version 5) for history.
#include <doctest/doctest.h>

#include "controller/state/state_store.h"
#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

class LocalDisk final : public FilesystemProbe {
 public:
  Result<FilesystemInfo> Probe(const std::string&) const override { return FilesystemInfo{0xEF53, "", "/"}; }
};

}  // namespace

TEST_CASE("a run's extra vars are recorded and listed with it; a run without has none") {
  testing::TempDir dir;
  FakeClock clock;
  LocalDisk disk;
  auto store = StateStore::OpenForWriting(StatePaths{dir.path()}, {&clock, &disk, "x"});
  REQUIRE(store.ok());
  const int64_t with = *(*store)->BeginRun("deploy", "clusterctl deploy x -e slurm_accounting=false");
  REQUIRE((*store)->RecordRunExtraVars(with, {{"slurm_accounting", false}}).ok());
  const int64_t without = *(*store)->BeginRun("deploy", "clusterctl deploy x");
  auto runs = (*store)->ListRuns(10);
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 2);
  CHECK(runs->at(0).id == without);
  CHECK_FALSE(runs->at(0).extra_vars.has_value());
  CHECK(runs->at(1).id == with);
  CHECK(runs->at(1).extra_vars == std::optional<std::string>(R"({"slurm_accounting":false})"));
}

}  // namespace clusterctl
