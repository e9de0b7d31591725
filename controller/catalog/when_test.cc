#include "controller/catalog/when.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("when expressions evaluate against facts and variables") {
  nlohmann::json context = {{"facts", {{"os", {{"family", "debian"}, {"version_id", "12"}}},
                                       {"pci", {{"gpu_count", 4}}}, {"nvidia_driver", nullptr}}},
                            {"testbed", true}, {"host", {{"groups", {"compute", "nfs_clients"}}}}};
  struct Case {
    const char* text;
    bool expected;
  };
  const Case cases[] = {
      {"facts.os.family == 'debian'", true},
      {"facts.os.family != \"debian\"", false},
      {"facts.pci.gpu_count > 0 and not facts.nvidia_driver", true},
      {"'compute' in host.groups", true},
      {"'controller' in host.groups or testbed", true},
      {"facts.os.version_id in ['11', '12']", true},
      {"defined(slurm_version)", false},
      {"not (testbed and facts.pci.gpu_count >= 8)", true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto expression = WhenExpression::Parse(c.text);
    REQUIRE(expression.ok());
    auto value = expression->Evaluate(context);
    REQUIRE(value.ok());
    CHECK(*value == c.expected);
  }
}

TEST_CASE("when syntax errors name the column; undefined names are evaluation errors") {
  CHECK(WhenExpression::Parse("facts.os.family ==").status().message() == "unexpected end of expression at column 19");
  CHECK(WhenExpression::Parse("a and and b").status().message() == "expected a value at column 7");
  CHECK(WhenExpression::Parse("x == 'open").status().message() == "unterminated string at column 6");
  CHECK(WhenExpression::Parse("a ! b").status().message() == "unexpected '!' at column 3");
  auto typo = WhenExpression::Parse("fatcs.os.family == 'debian'");
  REQUIRE(typo.ok());
  CHECK(typo->Evaluate({{"facts", nlohmann::json::object()}}).status().message() ==
        "undefined name 'fatcs.os.family' (test it with defined(fatcs.os.family))");
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("comparing values that cannot be compared names them, invalid UTF-8 included (a fuzz find)") {
  auto when = WhenExpression::Parse("88 <= \"\xc1\"");
  REQUIRE(when.ok());
  auto result = when->Evaluate(nlohmann::json::object());
  REQUIRE_FALSE(result.ok());
  CHECK(result.status().message().find("cannot compare 88 <=") == 0);
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("deeply nested when expressions are an error, not a stack overflow (a fuzz find)") {
  auto deep = WhenExpression::Parse(std::string(5000, '(') + "1" + std::string(5000, ')'));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.status().message().find("nested deeper than 64 levels") == 0);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  CHECK_FALSE(WhenExpression::Parse(nots + "true").ok());
  CHECK(WhenExpression::Parse(std::string(20, '(') + "1 == 1" + std::string(20, ')')).ok());
}

}  // namespace clusterctl
