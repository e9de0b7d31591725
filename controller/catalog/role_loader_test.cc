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

TEST_CASE("a role declares value syntaxes for its variables; each is checked when the role loads") {
  Catalog::Sources sources{{}, {testing::SourceDir() + "/templates"}};
  Diagnostics good;
  auto role = Catalog::ParseRole("version: 2\nvars:\n  listen: null\n  keep: 15d\nsyntax:\n  listen: address:port\n"
                                 "  keep: duration\n",
                                 "/t/roles/t.yaml", "t", sources, good);
  REQUIRE(role);
  CHECK_FALSE(good.has_errors());
  CHECK(role->syntax.at("listen") == FindValueSyntax("address:port"));

  Diagnostics bad;
  (void)Catalog::ParseRole("version: 2\nvars:\n  keep: forever\nsyntax:\n  keep: duration\n  other: word\n"
                           "  keep2: adress\n",
                           "/t/roles/t.yaml", "t", sources, bad);
  const std::string errors = bad.ToString();
  CHECK(errors.find("/t/roles/t.yaml:5:9: error: the default of 'keep' (forever) is not a duration") != std::string::npos);
  CHECK(errors.find("/t/roles/t.yaml:6:3: error: syntax of 'other': not a variable of this role's vars") !=
        std::string::npos);

  Diagnostics unknown;
  (void)Catalog::ParseRole("vars:\n  a: x\nsyntax:\n  a: adress\n", "/t/roles/t.yaml", "t", sources, unknown);
  CHECK(unknown.ToString().find("unknown syntax 'adress'") != std::string::npos);
  CHECK(unknown.ToString().find("did you mean 'address'") != std::string::npos);

  Diagnostics future;
  (void)Catalog::ParseRole("version: 3\n", "/t/roles/t.yaml", "t", sources, future);
  CHECK(future.ToString().find("role format version 3 is not supported (this clusterctl reads 1 to 2)") !=
        std::string::npos);
}

}  // namespace
}  // namespace clusterctl
