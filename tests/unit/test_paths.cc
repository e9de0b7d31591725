#include "tests/unit/test_paths.h"

namespace clusterctl::testing {

std::string SourceDir() { return CLUSTERCTL_SOURCE_DIR; }
std::string FixturesDir() { return CLUSTERCTL_SOURCE_DIR "/tests/fixtures"; }
std::string SharedFixturesDir() { return CLUSTERCTL_SOURCE_DIR "/tests/fixtures/captured"; }
std::string BuildDir() { return CLUSTERCTL_BUILD_DIR; }

}  // namespace clusterctl::testing
