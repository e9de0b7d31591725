// Reading test fixtures (tests/fixtures): a file's bytes; a missing fixture
// fails the test instead of feeding a parser an empty string.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include "tests/unit/test_paths.h"

namespace clusterctl::testing {

inline std::string ReadFixture(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing fixture " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A real captured tool output from tests/fixtures/captured (SOURCES.md there).
inline std::string CapturedFixture(const std::string& name) {
  return ReadFixture(testing::SharedFixturesDir() + "/" + name);
}

}  // namespace clusterctl::testing
