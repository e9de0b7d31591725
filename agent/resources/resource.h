// Resources: the units of desired state the agent checks and applies.
//
// Every resource kind is one function with one code path for check and
// apply: it inspects the node, lists what differs, and only when
// `request.apply` is set changes anything. With apply=false it must change
// nothing, and it reports "changed" exactly when the apply run would change
// something. Commands it runs go through ResourceHost::Run, which records
// them and whether they mutate, so tests (and the controller) can see that a
// converged resource ran no mutating command.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/exec/run_command.h"
#include "agent/protocol/messages.h"
#include "common/status.h"

namespace clusterctl::agent {

// The protocol's types are the resources' own: what a resource reports is
// exactly what travels back to the controller.
using ResourceRequest = agent_protocol::ResourceRequest;
using ResourceOutcome = agent_protocol::ResourceResult;
using ExecutedCommand = agent_protocol::ExecutedCommand;

// Side effects of resources that are commands. Real on nodes; tests use it to
// inspect what ran.
class ResourceHost {
 public:
  // `hangup`: the controller's session; every command run here stops when it closes.
  explicit ResourceHost(HangupWatch hangup = {}) : hangup_(hangup) {}
  virtual ~ResourceHost() = default;
  // Runs a command; `mutating` says whether it changes the node (queries don't).
  virtual CommandResult Run(const CommandSpec& spec, bool mutating);
  const HangupWatch& hangup() const { return hangup_; }
  const std::vector<ExecutedCommand>& log() const { return log_; }
  bool RanMutatingCommand() const;

 protected:
  std::vector<ExecutedCommand> log_;

 private:
  HangupWatch hangup_;
};

// Runs one resource request; unknown kinds and exceptions become failures.
ResourceOutcome RunResource(const ResourceRequest& request, ResourceHost& host);

// Convenience for resources: runs argv (stopped after `limit`); on failure
// fills `outcome` and returns false.
bool RunOrFail(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv, bool mutating,
               const std::string& stdin_data = "", std::chrono::minutes limit = std::chrono::minutes(30));
// Why a command did not succeed, as the end of a sentence about it: "did not
// finish in 60 s", "made no progress for 30 s", "exited with status 1",
// "could not be started".
std::string CommandFailureReason(const CommandSpec& spec, const CommandResult& result);
// The same for a command spelled out in full (a stall watch, say); `ran`,
// when given, receives the command's result either way.
bool RunSpecOrFail(ResourceHost& host, ResourceOutcome& outcome, const CommandSpec& spec, bool mutating,
                   CommandResult* ran = nullptr);

// copy's transfer: writes `data` at `offset` of "<path>.clusterctl-partial".
Status WriteUploadChunk(const std::string& path, uint64_t offset, const std::string& data);

// Starts a reboot in a detached process after `delay_ms`, so the answer to
// the request still reaches the controller.
Status ScheduleReboot(int delay_ms);

}  // namespace clusterctl::agent
