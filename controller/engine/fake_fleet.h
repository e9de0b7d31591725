// A fleet of fake nodes for unit tests of the engine: a SessionFactory whose
// sessions are AgentSessions over an in-memory transport. Each FakeNode
// answers protocol frames through the agent side of the real codec
// (agent/protocol/messages.h), so requests and replies cross the same
// encode/decode path as on a real node, and simulates the resources the
// engine's tests need without touching the machine. Resource kinds are
// answered through the node's table of fake kinds (`kinds`, a test may add
// or replace one), with no kind named anywhere else:
//   file      content by path (changed when it differs; the old content is
//             the backup)
//   service   running/enabled; restarted/reloaded counts restarts and moves
//             the InvocationID, reported as systemd would (UnitState)
//   assert    holds unless `asserts_fail` (or `asserts_need_reboot` before
//             the first reboot)
//   others    "applied" once per kind and parameters
//   exec      `commands` answer what they can (by argv prefix);
//             `cat /proc/sys/kernel/random/boot_id` answers the boot id;
//             anything else exits 0 with no output
//   reboot    the node answers with its old boot id for a while, is down,
//             then answers with a new boot id (or stays down until a
//             PowerCycle, as a node hung in its firmware)
// Faults are injected with `intercept`: it sees every decoded request first
// and may answer it (a malformed reply), fail the transport, or throw; and
// with `answer_delay`: how long the node takes to answer a request (a slow
// node), without blocking a thread. A delay past the request's deadline is
// a silent node: the request fails with Timeout at its deadline, as over SSH.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "controller/engine/fake_commands.h"
#include "controller/remote/session_factory.h"

namespace clusterctl::testing {

struct FakeService {
  bool active = false;
  bool enabled = false;
  int invocation = 1;
  int restarts = 0;
  int activating_looks = 0;  // a slow start: the next N looks see "activating"
};

// The node does what was asked, but the reply is lost: the transport fails
// with `status` (a crash or a cut connection after the change was made).
struct LoseReply {
  Status status;
};

// What an intercept does with a request: nothing (the node answers), a
// reply of its own, a transport failure before the node acts, or the
// node's action with its reply lost.
using Interception = std::variant<std::monostate, agent_protocol::Frame, Status, LoseReply>;

class FakeNode;

// How a fake node answers check (and apply) of one resource kind.
// Called with the node's mutex held.
using FakeKind = std::function<agent_protocol::ResourceResult(FakeNode& node, const agent_protocol::ResourceRequest& request)>;

// The fake kinds every node starts with (file, service, assert).
std::map<std::string, FakeKind> DefaultFakeKinds();

class FakeNode {
 public:
  explicit FakeNode(std::string name);

  // Answers one request frame as the agent would (after the intercept).
  // REQUIRES: `mutex()` held.
  Result<agent_protocol::Frame> Answer(const agent_protocol::Frame& request);
  std::mutex& mutex() { return mutex_; }

  std::string name;
  nlohmann::json facts;
  std::map<std::string, std::string> files;
  std::map<std::string, FakeService> services;
  std::map<std::string, int> applied;  // other resources: "kind params" -> times applied
  FakeCommands commands;               // canned answers to exec requests (fake_commands.h)
  std::string boot_id = "boot-1";
  int reboots = 0;
  // After a reboot request: connection attempts that still reach the old
  // boot (the node has not gone down yet), then attempts refused while it
  // is down; the next one sees the new boot id.
  int stale_opens_after_reboot = 0;
  int down_after_reboot = 2;
  bool unreachable = false;
  std::string refusal;                  // set: every connection fails with this message (a banner, an SSH error)
  std::chrono::milliseconds open_delay{0};  // a slow connection: each takes this long, without blocking a thread
  std::vector<std::string> open_notes;  // what each connection reports (a host key accepted, the agent installed)
  bool asserts_need_reboot = false;  // an assert fails until the node has rebooted once
  bool asserts_fail = false;         // every assert fails
  int opens = 0;  // connection attempts
  std::function<Interception(const agent_protocol::IncomingRequest&)> intercept;
  std::function<std::chrono::milliseconds(const agent_protocol::IncomingRequest&)> answer_delay;
  std::map<std::string, FakeKind> kinds = DefaultFakeKinds();  // a kind not here: "applied" once

  // Its BMC's power cycle: the node boots anew (a reboot that hung ends).
  // REQUIRES: `mutex()` held.
  void PowerCycle();
  int power_cycles = 0;

  // How long the node takes to answer `request` (0 without `answer_delay`).
  // REQUIRES: `mutex()` held.
  std::chrono::milliseconds DelayOf(const agent_protocol::Frame& request);

 private:
  agent_protocol::Frame Act(const agent_protocol::IncomingRequest& request);
  agent_protocol::ResourceResult Resource(const agent_protocol::ResourceRequest& request);
  agent_protocol::ExecReply Exec(const agent_protocol::ExecRequest& request);

  friend class FakeFleet;
  // Advances a reboot in progress by one connection attempt; false: refused.
  bool ConnectDuringReboot();

  std::mutex mutex_;
  bool rebooting_ = false;
  std::string next_boot_id_;
  int stale_left_ = 0;
  int down_left_ = 0;
};

class FakeFleet final : public SessionFactory {
 public:
  explicit FakeFleet(size_t threads = 2) : pool_(threads) {}
  ~FakeFleet() override;

  FakeNode& Add(const std::string& name);
  FakeNode& node(const std::string& name) { return *nodes_.at(name); }

  Task<OpenedSession> Open(const Host& host, const CancelToken* cancel) override;
  void ForEach(size_t count, const std::function<Task<void>(size_t)>& body) override;

 private:
  boost::asio::thread_pool pool_;
  std::map<std::string, std::unique_ptr<FakeNode>> nodes_;
};

// Facts a planner accepts for a small node (4 CPUs, 8 GiB, `gpus` GPUs).
nlohmann::json FakeFacts(const std::string& host, int gpus = 0);

}  // namespace clusterctl::testing
