// Jump hosts (ProxyJump-style bastions).
//
// One SSH session per bastion carries a direct-tcpip channel per target host.
// Each tunnel is presented to the target's SshSession as one end of a
// socketpair, so the target session is an ordinary libssh session whose
// socket happens to be local. A relay thread per bastion owns the bastion
// session (libssh sessions are single-owner) and moves bytes between every
// channel and its socketpair end.
//
// The bastion is verified with the same host-key policy as the targets
// (recorded under "jump:<host>:<port>") and authenticated with the key file of
// the first host that uses it (or ssh-agent and default identities).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "controller/ssh/host_key_policy.h"
#include "controller/ssh/ssh_session.h"
#include "inventory/model.h"

namespace clusterctl {

class JumpRelay;

class JumpHosts {
 public:
  explicit JumpHosts(HostKeyRegistry& host_keys);
  ~JumpHosts();

  // A connected socket to target.address:port through `jump`, owned by the caller.
  Task<Result<int>> OpenTunnel(const JumpHost& jump, const Host& target, Deadline deadline);

  // Notes from bastion connections (new host keys).
  std::vector<std::string> Notes();

  static std::string KeyName(const JumpHost& jump) { return "jump:" + jump.host + ":" + std::to_string(jump.port); }

 private:
  JumpRelay& RelayFor(const JumpHost& jump, const Host& first_user);

  HostKeyRegistry& host_keys_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<JumpRelay>> relays_;
};

}  // namespace clusterctl
