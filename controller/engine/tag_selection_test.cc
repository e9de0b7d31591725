#include "controller/engine/tag_selection.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

Role RoleTagged(std::vector<std::string> tags) {
  Role role;
  role.name = "r";
  role.tags = std::move(tags);
  return role;
}

RoleStep StepTagged(std::vector<std::string> tags) {
  RoleStep step;
  step.name = "s";
  step.tags = std::move(tags);
  return step;
}

}  // namespace

TEST_CASE("--tags selects steps by their own or their role's tags; --skip-tags wins") {
  const Role slurm = RoleTagged({"slurm"});
  const RoleStep plain = StepTagged({});
  const RoleStep config = StepTagged({"config"});
  CHECK(TagSelection{}.Selects(slurm, plain));
  CHECK(TagSelection{{"slurm"}, {}}.Selects(slurm, plain));
  CHECK(TagSelection{{"config"}, {}}.Selects(slurm, config));
  CHECK_FALSE(TagSelection{{"config"}, {}}.Selects(slurm, plain));
  CHECK_FALSE(TagSelection{{"gpu"}, {}}.Selects(slurm, config));
  CHECK_FALSE(TagSelection{{}, {"slurm"}}.Selects(slurm, config));
  CHECK_FALSE(TagSelection{{"slurm"}, {"config"}}.Selects(slurm, config));
  CHECK(TagSelection{{"slurm"}, {"config"}}.Selects(slurm, plain));
}

TEST_CASE("an unknown tag is an error with a suggestion from the catalog's tags") {
  Catalog::Sources sources;
  sources.role_dirs = {testing::SourceDir() + "/roles"};
  sources.template_dirs = {testing::SourceDir() + "/templates"};
  Diagnostics loading;
  std::optional<Catalog> catalog = Catalog::Load(sources, loading);
  REQUIRE(catalog);
  const std::vector<std::string> known = CatalogTags(*catalog);
  CHECK(std::find(known.begin(), known.end(), "slurm") != known.end());
  Diagnostics diagnostics;
  CheckTagNames(*catalog, {{"slurm", "slrum"}, {"monitorng"}}, diagnostics);
  REQUIRE(diagnostics.error_count() == 2);
  const std::string text = diagnostics.ToString();
  CHECK(text.find("--tags: error: unknown tag 'slrum' (did you mean 'slurm'?)") != std::string::npos);
  CHECK(text.find("--skip-tags: error: unknown tag 'monitorng' (did you mean 'monitoring'?)") != std::string::npos);
}

}  // namespace clusterctl
