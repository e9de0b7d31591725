// The clusterctl-agent builds the controller can ship, one per CPU
// architecture, found beside the clusterctl executable:
//   clusterctl-agent          (built with clusterctl; its architecture read from the ELF header)
//   clusterctl-agent-<arch>   (further builds, e.g. clusterctl-agent-aarch64)
// Each is identified by the SHA-256 of its content; nodes keep it under
// /var/lib/clusterctl/agent/<first 16 hex digits>/clusterctl-agent.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace clusterctl {

struct AgentBinary {
  std::string arch;     // "x86_64", as `uname -m` prints it
  std::string path;     // on the controller
  std::string sha256;   // full hex digest
  size_t size = 0;

  std::string RemoteDirectory() const { return "/var/lib/clusterctl/agent/" + sha256.substr(0, 16); }
  std::string RemotePath() const { return RemoteDirectory() + "/clusterctl-agent"; }
};

class AgentBinaries {
 public:
  // Looks in `directory`; by default $CLUSTERCTL_AGENT_DIR when set, else
  // <prefix>/lib/clusterctl when clusterctl runs from <prefix>/bin (the
  // installed layout), else the directory of clusterctl itself (the build tree).
  static Result<AgentBinaries> Discover(std::string directory = "");

  const AgentBinary* ForArch(const std::string& arch) const;
  std::vector<std::string> Archs() const;
  const std::map<std::string, AgentBinary>& all() const { return by_arch_; }
  // Reads the binary's content (for an upload).
  static Result<std::string> Load(const AgentBinary& binary);

 private:
  std::map<std::string, AgentBinary> by_arch_;
};

// "x86_64", "aarch64", "ppc64le", or "" for an ELF header that is not one of them.
std::string ElfArchitecture(const std::string& header_bytes);

// Where the programs that run on nodes (clusterctl-agent, clusterctl-health)
// are: $CLUSTERCTL_AGENT_DIR, else <prefix>/lib/clusterctl when installed,
// else the build tree beside clusterctl; "" when it cannot be told.
std::string NodeProgramsDirectory();

// The path of a program clusterctl ships for nodes other than the agent
// (only "clusterctl-health"), in NodeProgramsDirectory(); an error naming
// what is missing.
Result<std::string> ShippedNodeProgram(const std::string& name);

}  // namespace clusterctl
