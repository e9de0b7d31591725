// Gathering all facts of this node (the agent's "facts" request).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

struct GatherOptions {
  std::string root = "";  // prefix for every file read; "" on a real node, a fixture tree in tests
  std::vector<std::string> packages;  // globs of package names to report versions of
  bool live_system = true;            // also ask the kernel (uname, getifaddrs, hostname)
};

// Each fact is gathered independently: one that fails is reported under
// "errors" with the reason, and the others are still returned.
nlohmann::json GatherFacts(const GatherOptions& options);

// The package globs roles care about, used when a request names none.
const std::vector<std::string>& DefaultPackagePatterns();

}  // namespace clusterctl::facts
