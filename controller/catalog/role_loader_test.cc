#include <doctest/doctest.h>

#include "controller/catalog/role.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

TEST_CASE("a file step whose template is not a string is an error, not a crash (a fuzz find)") {
  Diagnostics diagnostics;
  Catalog::Sources sources{{}, {testing::SourceDir() + "/templates"}};
  auto role = Catalog::ParseRole("version: 1\ndescription: x\nsteps:\n  - name: f\n    file:\n      path: /etc/x\n"
                                 "      template: [a, b]\n",
                                 "/t/roles/t.yaml", "t", sources, diagnostics);
  (void)role;
  CHECK(diagnostics.has_errors());
  CHECK(diagnostics.ToString().find("/t/roles/t.yaml:7") != std::string::npos);
}

}  // namespace
}  // namespace clusterctl
