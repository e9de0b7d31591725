#include "agent/resources/nvidia_mig_layout.h"

#include <doctest/doctest.h>

#include <set>

#include "agent/facts/nvidia_mig.h"
#include "tests/unit/fixture.h"

namespace clusterctl::agent::nvidia_mig {
namespace {

const GpuModel& Model(std::string_view name) {
  for (const GpuModel& model : KnownGpuModels()) {
    if (model.name == name) return model;
  }
  FAIL("no model " << name);
  return KnownGpuModels().front();
}

std::vector<std::string> On(const std::vector<std::string>& items, std::string_view model) {
  Result<Layout> layout = ParseLayout(items);
  REQUIRE(layout.ok());
  Result<std::vector<std::string>> profiles = ProfilesOn(*layout, Model(model));
  REQUIRE_MESSAGE(profiles.ok(), profiles.status().message());
  return *profiles;
}

}  // namespace

TEST_CASE("MIG layouts: the profiles one GPU gets, largest first; all-PROFILE fills the GPU") {
  CHECK(On({"3g.40gb", "3g.40gb"}, "A100 80GB, H100 80GB") == std::vector<std::string>{"3g.40gb", "3g.40gb"});
  CHECK(On({"1g.10gb", "3g.40gb", "2g.20gb"}, "A100 80GB, H100 80GB") ==
        std::vector<std::string>{"3g.40gb", "2g.20gb", "1g.10gb"});
  CHECK(On({"all-1g.10gb"}, "A100 80GB, H100 80GB") == std::vector<std::string>(7, "1g.10gb"));
  CHECK(On({"all-1g.20gb"}, "A100 80GB, H100 80GB") == std::vector<std::string>(4, "1g.20gb"));
  CHECK(On({"all-3g.71gb"}, "H200 141GB") == std::vector<std::string>(2, "3g.71gb"));
  CHECK(On({"all-2g.12gb"}, "A30 24GB") == std::vector<std::string>(2, "2g.12gb"));
}

TEST_CASE("MIG layouts: what a GPU cannot hold is refused, saying what it lacks") {
  Result<Layout> three = ParseLayout({"3g.40gb", "3g.40gb", "3g.40gb"});
  REQUIRE(three.ok());
  auto on = ProfilesOn(*three, Model("A100 80GB, H100 80GB"));
  REQUIRE_FALSE(on.ok());
  CHECK(on.status().message() == "A100 80GB, H100 80GB holds at most 2 3g.40gb");
  Result<Layout> slices = ParseLayout({"4g.40gb", "3g.40gb", "1g.10gb"});
  REQUIRE(slices.ok());
  auto over = ProfilesOn(*slices, Model("A100 80GB, H100 80GB"));
  REQUIRE_FALSE(over.ok());
  CHECK(over.status().message() == "needs 8 compute and 9 memory slices; A100 80GB, H100 80GB has 7 and 8");
  CHECK_FALSE(ProfilesOn(*slices, Model("A100 40GB")).ok());  // offers no 4g.40gb
}

TEST_CASE("MIG layouts: the inventory's syntax (mig-layout): names, all- alone, some known GPU fits") {
  CHECK(LayoutRefusal("3g.40gb,3g.40gb") == "");
  CHECK(LayoutRefusal("all-1g.10gb") == "");
  CHECK(LayoutRefusal("3g.71gb,2g.35gb,1g.18gb,1g.18gb") == "");  // the H200 of the captured nvidia-smi -L
  CHECK(LayoutRefusal("4g.24gb") == "");
  CHECK(LayoutRefusal("") == "is an empty layout (name the profiles of one GPU: [3g.40gb, 3g.40gb], or [all-1g.10gb])");
  CHECK(LayoutRefusal("3g.40gb,all-1g.10gb") == "has 'all-1g.10gb', which stands alone (all of one GPU)");
  CHECK(LayoutRefusal("3g.40g").find("has '3g.40g', which is not a MIG profile name") == 0);
  CHECK(LayoutRefusal("1c.3g.40gb").find("is a compute instance") != std::string::npos);
  CHECK(LayoutRefusal("3g.40gb;reboot").find("not a MIG profile name") != std::string::npos);
  CHECK(LayoutRefusal("3g.40gb,3g.40gb,3g.40gb") == "does not fit one GPU: A100 80GB, H100 80GB holds at most 2 3g.40gb");
  const std::string mixed = LayoutRefusal("3g.40gb,3g.20gb");  // an 80 GB profile with a 40 GB one
  CHECK(mixed.find("names profiles no one MIG GPU clusterctl knows offers together (") == 0);
  CHECK(mixed.find("A100 40GB: 1g.5gb 1g.5gb+me 1g.10gb 2g.10gb 3g.20gb 4g.20gb 7g.40gb") != std::string::npos);
  CHECK(LayoutRefusal("5g.50gb").find("names profiles no one MIG GPU") == 0);
}

TEST_CASE("MIG layouts: the H100 80GB row is what a real H100 offers (nvidia-smi mig -lgip)") {
  auto offered = facts::ParseMigProfiles(testing::CapturedFixture("nvidia-smi-mig-lgip--4xH100-SXM5-80GB--1.txt"));
  REQUIRE(offered.ok());
  std::set<std::pair<std::string, int>> real, known;
  for (const facts::MigProfile& p : *offered) {
    if (p.gpu == 0) real.insert({p.name, p.total});
  }
  for (const ProfileShape& shape : Model("A100 80GB, H100 80GB").profiles) known.insert({std::string(shape.name), shape.max_instances});
  CHECK(real == known);
}

}  // namespace clusterctl::agent::nvidia_mig
