// Where the unit tests find the source tree, its fixtures and the build.
// Functions, not compile definitions on every test: an absolute path on a
// compile command line differs between clones, and ccache would miss every
// test file of a fresh clone at another path (docs/building.md). Only
// test_paths.cc is compiled with the paths.
#pragma once

#include <string>

namespace clusterctl::testing {

std::string SourceDir();          // the repository root
std::string FixturesDir();        // tests/fixtures
std::string SharedFixturesDir();  // tests/fixtures/captured
std::string BuildDir();           // the build directory (the agent's builds)

}  // namespace clusterctl::testing
