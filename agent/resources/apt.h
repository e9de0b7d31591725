// apt as the package and repository resources run it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "agent/resources/resource.h"

namespace clusterctl::agent {

// Runs an apt-get command line (argv[0] is apt-get), stopped after `limit`,
// waiting for another package manager's locks first and trying again when
// it lost a lock race or stalled; repairs an interrupted dpkg once. On
// failure fills `outcome` and returns false (package.cc says why each
// retry exists).
bool RunApt(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv,
            std::chrono::minutes limit = std::chrono::minutes(30));

}  // namespace clusterctl::agent
