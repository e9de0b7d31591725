// What `clusterctl --version` prints: the version and the commit it was
// built from, the agent protocol, and the node agents this clusterctl would
// ship (their architectures and where it found them).
#pragma once

#include <string>

namespace clusterctl {

std::string VersionText();

}  // namespace clusterctl
