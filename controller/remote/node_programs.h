// The programs clusterctl ships for nodes, one build per CPU architecture,
// in NodeProgramsDirectory() (controller/remote/agent_binaries.h): `name`
// (built with clusterctl) and `name-<arch>` (further builds, e.g.
// clusterctl-health-aarch64 from cmake/Aarch64NodePrograms.cmake), told
// apart by their ELF headers, never by their names.
#pragma once

#include <map>
#include <string>

#include "common/status.h"

namespace clusterctl {

// The builds of program `name` in `directory` by architecture ("x86_64" ->
// path): `name` and `name-<anything>` whose ELF header is one of
// ElfArchitecture's; other files are skipped.
std::map<std::string, std::string> BuildsByArch(const std::string& directory, const std::string& name);

// The path of a program clusterctl ships for nodes other than the agent
// (only "clusterctl-health") built for `arch` (as `uname -m` prints it, the
// facts' kernel.arch), in `directory` (by default NodeProgramsDirectory()).
// An empty `arch` (the node's facts not gathered) takes `name`, the build
// beside clusterctl. An error names what is missing: the program, or the
// node's architecture and the builds there are.
Result<std::string> ShippedNodeProgramFor(const std::string& name, const std::string& arch, std::string directory = "");

}  // namespace clusterctl
