#include "inventory/hostlist.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("ExpandHostPattern keeps zero padding and order") {
  auto names = ExpandHostPattern("gpu[001-128]");
  REQUIRE(names.ok());
  CHECK(names->size() == 128);
  CHECK(names->front() == "gpu001");
  CHECK(names->back() == "gpu128");
}

TEST_CASE("ExpandHostPattern handles lists, several ranges and plain names") {
  CHECK(*ExpandHostPattern("gpu[01-02,07]") == std::vector<std::string>{"gpu01", "gpu02", "gpu07"});
  CHECK(*ExpandHostPattern("rack[1-2]-n[01-02]") ==
        std::vector<std::string>{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"});
  CHECK(*ExpandHostPattern("head") == std::vector<std::string>{"head"});
  CHECK(*ExpandHostPattern("10.0.2.[1-3]/16") ==
        std::vector<std::string>{"10.0.2.1/16", "10.0.2.2/16", "10.0.2.3/16"});
  CHECK(*ExpandHostPattern("n[8-11]") == std::vector<std::string>{"n8", "n9", "n10", "n11"});
}

TEST_CASE("ExpandHostPattern rejects malformed patterns with the column") {
  struct Case {
    const char* pattern;
    const char* message;
  };
  const Case cases[] = {
      {"gpu[1-4", "malformed range in 'gpu[1-4' at column 4: '[' is never closed"},
      {"gpu1-4]", "malformed range in 'gpu1-4]' at column 7: ']' without '['"},
      {"gpu[1-[2]]", "malformed range in 'gpu[1-[2]]' at column 7: nested '['"},
      {"gpu[]", "malformed range in 'gpu[]' at column 4: empty brackets"},
      {"gpu[9-1]", "malformed range in 'gpu[9-1]' at column 4: range '9-1' runs backwards"},
      {"gpu[a-c]", "malformed range in 'gpu[a-c]' at column 4: expected N or N-M with digits, got 'a-c'"},
      {"gpu[1-]", "malformed range in 'gpu[1-]' at column 4: expected N or N-M with digits, got '1-'"},
      {"gpu[1,,2]", "malformed range in 'gpu[1,,2]' at column 4: expected N or N-M with digits, got ''"},
      {"gpu[0-999999999]", "malformed range in 'gpu[0-999999999]' at column 4: expands to more than 100000 names"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.pattern);
    auto result = ExpandHostPattern(c.pattern);
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().message() == c.message);
  }
}

TEST_CASE("ExpandHostPattern bounds the product of several ranges") {
  auto result = ExpandHostPattern("a[0-999]b[0-999]");
  REQUIRE_FALSE(result.ok());
  CHECK(result.status().message().find("more than 100000") != std::string::npos);
}

TEST_CASE("CollapseHostList writes range notation") {
  CHECK(CollapseHostList({"node03", "login", "node02", "node04"}) == "login,node[02-04]");
  CHECK(CollapseHostList({"gpu001", "gpu002", "gpu004", "gpu005", "gpu007"}) == "gpu[001-002,004-005,007]");
  CHECK(CollapseHostList({"n9", "n10", "n11"}) == "n[9-11]");
  CHECK(CollapseHostList({"node09", "node10"}) == "node[09-10]");
  CHECK(CollapseHostList({"a", "a"}) == "a");
  CHECK(CollapseHostList({"rack1-n01", "rack1-n02", "rack2-n01"}) == "rack1-n[01-02],rack2-n01");
  CHECK(CollapseHostList({}).empty());
}

TEST_CASE("CollapseHostList is the inverse of ExpandHostPattern") {
  for (const char* pattern : {"gpu[001-128]", "node[01-03,05,09-12]", "n[1-20]"}) {
    CAPTURE(pattern);
    CHECK(CollapseHostList(*ExpandHostPattern(pattern)) == pattern);
  }
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("SplitHostList splits at commas outside brackets") {
  CHECK(SplitHostList("head01,gpu[01-04,09]") == std::vector<std::string>{"head01", "gpu[01-04,09]"});
  CHECK(SplitHostList(" a , b ") == std::vector<std::string>{"a", "b"});
  CHECK(SplitHostList("a,,b") == std::vector<std::string>{"a", "", "b"});
}

}  // namespace clusterctl
