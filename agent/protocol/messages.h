// Agent protocol messages (docs/agent-protocol.md): every request and reply
// the controller and the agent exchange is built and parsed here, and
// nowhere else. Both sides link this file: the agent's request handler
// decodes requests and encodes replies, the controller's AgentSession
// encodes requests and decodes replies.
//
// Decoding never throws. A missing required field or a field of the wrong
// type is a Status naming the message and the field, so a hostile or broken
// peer fails its own host with a message and nothing else.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/protocol/frame.h"
#include "common/status.h"

namespace clusterctl::agent_protocol {

// The agent's first frame.
struct Hello {
  int protocol = 0;
  std::string agent_version;
  int64_t pid = 0;
  int64_t euid = -1;
  std::string arch;
  std::string hostname;
};

// ----------------------------------------------------------------- requests

struct FactsRequest {
  std::vector<std::string> packages;  // globs; empty: the agent's defaults
};

struct ExecRequest {
  std::vector<std::string> argv;  // never a shell string
  std::map<std::string, std::string> env;
  std::optional<int64_t> timeout_ms;
  std::optional<uint64_t> max_output_bytes;  // per stream; the agent caps it at its own limit
  std::string stdin_data;                    // the frame's body
};

struct ResourceRequest {
  std::string kind;
  nlohmann::json params = nlohmann::json::object();
  std::string body;  // file content for file/copy, a key for repository
  bool apply = false;  // false: check only, change nothing
};

struct UploadChunkRequest {
  std::string path;
  uint64_t offset = 0;
  std::string data;  // the frame's body
};

struct RebootRequest {
  int delay_ms = 1000;
};

struct PingRequest {};
struct ShutdownRequest {};

using Request = std::variant<FactsRequest, ExecRequest, ResourceRequest, UploadChunkRequest, RebootRequest,
                             PingRequest, ShutdownRequest>;

// ------------------------------------------------------------------ replies

struct ExecReply {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  bool truncated = false;
  bool started = true;  // false: the program could not be executed
  int64_t duration_ms = 0;
  std::string stdout_data;
  std::string stderr_data;
};

struct ExecutedCommand {
  std::vector<std::string> argv;
  bool mutating = false;
  int exit_code = 0;
};

// Kind-specific parts of a resource reply, each set only by the kind it
// belongs to (on the wire: keys of the outcome's `extra`, version 1).

// copy: the node lacks the content and waits for an upload; it already has
// `partial_size` bytes of it (sha256 `partial_sha256`) from an interrupted
// transfer, which the controller resumes after when they match its source.
struct UploadNeed {
  uint64_t partial_size = 0;
  std::string partial_sha256;
};

// service: the unit as the check found it (before any change), and its
// InvocationID after a change was applied ("" otherwise). The controller
// reads it to tell whether a restart an interrupted run owed happened.
struct UnitState {
  std::string invocation_before;
  std::string active_state;
  std::string invocation_after;
};

// What a resource check or apply found and did.
struct ResourceResult {
  bool changed = false;                  // something differs (and was changed when applying)
  std::vector<std::string> differences;  // what differs, for plans and recaps
  std::string diff;                      // unified diff of a file's content (never for secrets)
  bool failed = false;
  std::string error;
  std::string failed_command;  // the command that failed, as words
  std::string output;          // its output (tail)
  bool timed_out = false;      // it was stopped at its time limit
  bool has_backup = false;     // the previous content of a replaced file ...
  std::string backup;          // ... travelling as the frame's body
  std::vector<ExecutedCommand> commands;  // what ran, and whether it changes the node
  std::optional<UploadNeed> upload;       // copy
  std::optional<UnitState> unit;          // service

  // Records a difference; `changed` follows.
  void Differs(std::string what) {
    changed = true;
    differences.push_back(std::move(what));
  }
  ResourceResult& Fail(std::string message) {
    failed = true;
    error = std::move(message);
    return *this;
  }
  int MutatingCommands() const;
};

// Error codes of an `error` reply.
inline constexpr const char* kUnknownType = "unknown_type";
inline constexpr const char* kBadRequest = "bad_request";
inline constexpr const char* kBadFrame = "bad_frame";
inline constexpr const char* kIoError = "io_error";

// ------------------------------------------------------------- agent side

Frame EncodeHello(const Hello& hello);

struct IncomingRequest {
  nlohmann::json id;  // echoed in the reply (null when the request had none)
  Request request;
};
// Unsupported for an unknown type (answer kUnknownType), InvalidArgument for
// a malformed request (answer kBadRequest).
Result<IncomingRequest> DecodeRequest(const Frame& frame);
// The request's id as the reply must echo it (null when missing).
nlohmann::json RequestId(const Frame& frame);

Frame EncodeError(const nlohmann::json& id, const std::string& code, const std::string& message);
Frame EncodeEmptyReply(const nlohmann::json& id);
Frame EncodeFactsReply(const nlohmann::json& id, const nlohmann::json& facts);
Frame EncodeExecReply(const nlohmann::json& id, const ExecReply& reply);
Frame EncodeResourceReply(const nlohmann::json& id, const ResourceResult& result);

// -------------------------------------------------------- controller side

Frame EncodeRequest(int64_t id, const Request& request);
Result<Hello> DecodeHello(const Frame& frame);

// Whether `reply` answers the request with `id`. An `error` whose id is null
// or missing answers whatever is outstanding: the agent sends one for a
// frame it could not read, and then exits.
bool Answers(const Frame& reply, int64_t id);

// Each turns an `error` reply into a non-ok Status ("agent: <message>") and
// a reply with a missing or mistyped field into Corruption naming it.
Status DecodeEmptyReply(const Frame& frame);
Result<nlohmann::json> DecodeFactsReply(const Frame& frame);
Result<ExecReply> DecodeExecReply(const Frame& frame);
Result<ResourceResult> DecodeResourceReply(const Frame& frame);

}  // namespace clusterctl::agent_protocol
