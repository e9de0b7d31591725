#include "controller/cli/version_text.h"

#include "agent/protocol/frame.h"
#include "common/strings.h"
#include "controller/remote/agent_binaries.h"
#include "generated/commit.h"  // CLUSTERCTL_COMMIT, written at each build (cmake/GitCommit.cmake)

#ifndef CLUSTERCTL_VERSION
#define CLUSTERCTL_VERSION "dev"
#endif

namespace clusterctl {

std::string VersionText() {
  std::string text = std::string("clusterctl ") + CLUSTERCTL_VERSION + " (commit " + CLUSTERCTL_COMMIT + ")\n" +
                     "agent protocol " + std::to_string(agent_protocol::kProtocolVersion) + "\n";
  auto agents = AgentBinaries::Discover();
  if (!agents.ok()) return text + "agent builds: none (" + agents.status().message() + ")\n";
  std::vector<std::string> builds;
  for (const auto& [arch, binary] : agents->all()) builds.push_back(arch + " " + binary.path);
  return text + "agent builds: " + Join(builds, ", ") + "\n";
}

}  // namespace clusterctl
