#include "agent/resources/schema.h"

#include <doctest/doctest.h>

namespace clusterctl::resources {

TEST_CASE("ValidateParams names every problem") {
  const ResourceSpec* file = FindResourceSpec("file");
  REQUIRE(file);
  CHECK(ValidateParams(*file, {{"path", "/etc/x"}, {"content", "y"}, {"mode", "0644"}}).empty());
  auto problems = ValidateParams(*file, {{"path", "/etc/x"}, {"mode", "rw-r--r--"}, {"ownr", "root"}});
  REQUIRE(problems.size() == 3);
  CHECK(problems[0] == "file parameter 'mode' must be an octal mode like \"0644\", got \"rw-r--r--\"");
  CHECK(problems[1].find("unknown parameter 'ownr' for file (did you mean 'owner'?)") == 0);
  CHECK(problems[2] == "file needs exactly one of content, template, source, secret_content");
  CHECK(ValidateParams(*FindResourceSpec("package"), nlohmann::json::object()).at(0) == "package needs parameter 'name'");
}

TEST_CASE("ParseMode accepts quoted and YAML-1.1-style modes") {
  CHECK(ParseMode("0644") == 0644);
  CHECK(ParseMode("600") == 0600);
  CHECK(ParseMode(644) == 0644);
  CHECK(ParseMode("0888") == -1);
  CHECK(ParseMode("rw") == -1);
}

}  // namespace clusterctl::resources
