// Reaching one host: TCP + SSH (retrying sshd MaxStartups refusals with
// backoff), host-key policy, authentication, and the agent (uploaded when the
// node lacks this exact build, then started as root, via sudo when the login
// user is not root).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "controller/remote/agent_binaries.h"
#include "controller/remote/agent_connection.h"
#include "controller/ssh/fd_waiter.h"
#include "controller/ssh/host_key_policy.h"
#include "inventory/model.h"

namespace clusterctl {

class JumpHosts;

struct RemoteOptions {
  std::chrono::seconds keepalive_interval{5};
  int max_connect_attempts = 8;
  // Secret: never logged or printed. Set from --ask-become-pass or CLUSTERCTL_SUDO_PASSWORD.
  std::optional<std::string> sudo_password;
  // False: a node without this build's agent is an error (FailedPrecondition)
  // instead of getting it uploaded: for readers that change nothing on a
  // node (the daemon's Slurm watch).
  bool install_agent = true;
  // Where each retried connection attempt is said, at debug level (-v), with
  // its reason; null: not said. REQUIRES: outlives the run.
  Logger* log = nullptr;
};

// Shared by every host of a run. Thread-safe members only.
struct RemoteContext {
  FdWaiter& waiter;
  HostKeyRegistry& host_keys;
  const AgentBinaries& agents;
  RemoteOptions options;
  JumpHosts* jump_hosts = nullptr;  // null when no host uses a jump host
};

struct HostConnection {
  std::unique_ptr<AgentConnection> agent;  // set on success
  Status status;                           // why not, otherwise
  bool unreachable = false;                // could not talk to sshd at all (vs. refused/failed after)
  std::vector<std::string> notes;          // e.g. "new host key ... recorded", "uploaded the agent"
};

// `cancel` (optional) is handed to the agent connection (AgentConnection).
Task<HostConnection> ConnectHost(const Host& host, RemoteContext& context, const CancelToken* cancel = nullptr);

}  // namespace clusterctl
