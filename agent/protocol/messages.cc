#include "agent/protocol/messages.h"

#include <limits>

namespace clusterctl::agent_protocol {
namespace {

using json = nlohmann::json;

// Reads typed fields of one message's header without throwing; the first
// problem is kept and names the message and the field.
class Fields {
 public:
  Fields(const json& object, std::string message) : object_(object), message_(std::move(message)) {
    if (!object_.is_object()) problem_ = "malformed " + message_ + ": not a JSON object";
  }

  std::string String(const char* key, bool required = false) {
    const json* v = Find(key, required);
    if (!v) return "";
    if (!v->is_string()) return Wrong(key, *v, "a string"), "";
    return v->get<std::string>();
  }
  int64_t Int(const char* key, bool required = false, int64_t fallback = 0) {
    const json* v = Find(key, required);
    if (!v) return fallback;
    if (!v->is_number_integer() ||
        (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))) {
      return Wrong(key, *v, "an integer"), fallback;
    }
    return v->get<int64_t>();
  }
  uint64_t Uint(const char* key, bool required = false) {
    const json* v = Find(key, required);
    if (!v) return 0;
    if (v->is_number_unsigned()) return v->get<uint64_t>();
    if (!v->is_number_integer() || v->get<int64_t>() < 0) return Wrong(key, *v, "a non-negative integer"), 0;
    return static_cast<uint64_t>(v->get<int64_t>());
  }
  int SmallInt(const char* key, bool required = false, int fallback = 0) {
    int64_t value = Int(key, required, fallback);
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
      Problem(std::string("'") + key + "' is out of range");
      return fallback;
    }
    return static_cast<int>(value);
  }
  bool Bool(const char* key, bool fallback = false) {
    const json* v = Find(key, false);
    if (!v) return fallback;
    if (!v->is_boolean()) return Wrong(key, *v, "true or false"), fallback;
    return v->get<bool>();
  }
  std::vector<std::string> Strings(const char* key, bool required = false) {
    std::vector<std::string> out;
    const json* v = Find(key, required);
    if (!v) return out;
    if (!v->is_array()) return Wrong(key, *v, "a list of strings"), out;
    for (const json& item : *v) {
      if (!item.is_string()) return Wrong(key, item, "a list of strings"), std::vector<std::string>{};
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  std::map<std::string, std::string> StringMap(const char* key) {
    std::map<std::string, std::string> out;
    const json* v = Find(key, false);
    if (!v) return out;
    if (!v->is_object()) return Wrong(key, *v, "an object of strings"), out;
    for (const auto& [name, value] : v->items()) {
      if (!value.is_string()) return Wrong(key, value, "an object of strings"), std::map<std::string, std::string>{};
      out[name] = value.get<std::string>();
    }
    return out;
  }
  // An object or array value, as is (nullptr when absent or of another type).
  const json* Structured(const char* key, json::value_t type, bool required = false) {
    const json* v = Find(key, required);
    if (!v) return nullptr;
    if (v->type() != type) return Wrong(key, *v, type == json::value_t::object ? "an object" : "a list"), nullptr;
    return v;
  }

  Status status() const { return problem_.empty() ? Status::Ok() : Status::Corruption(problem_); }

 private:
  const json* Find(const char* key, bool required) {
    if (!object_.is_object()) return nullptr;
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) {
      if (required) Problem(std::string("'") + key + "' is missing");
      return nullptr;
    }
    return &*it;
  }
  void Wrong(const char* key, const json& value, const char* expected) {
    Problem(std::string("'") + key + "' is " + value.type_name() + ", not " + expected);
  }
  void Problem(const std::string& what) {
    if (problem_.empty()) problem_ = "malformed " + message_ + ": " + what;
  }

  const json& object_;
  std::string message_;
  std::string problem_;
};

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

Frame ResultFrame(const json& id, json fields, std::string body = "") {
  json header = {{"type", "result"}, {"id", id}};
  for (auto& [key, value] : fields.items()) header[key] = std::move(value);
  return {std::move(header), std::move(body)};
}

// Non-ok for an `error` reply or a reply of another type than "result".
Status ReplyStatus(const Frame& frame, const char* what) {
  Fields f(frame.header, std::string(what) + " reply");
  const std::string type = f.String("type", true);
  if (!f.status().ok()) return f.status();
  if (type == "result") return Status::Ok();
  if (type != "error") return Status::Corruption("unexpected " + std::string(what) + " reply type '" + type + "'");
  const std::string code = f.String("code");
  std::string message = "agent: " + f.String("message");
  if (!f.status().ok()) return f.status();
  if (code == kUnknownType) return Status::Unsupported(message);
  if (code == kBadRequest) return Status::InvalidArgument(message);
  if (code == kIoError) return Status::IoError(message);
  if (code == kBadFrame) return Status::Corruption(message);
  return Status::Internal(message + (code.empty() ? "" : " (" + code + ")"));
}

// The kind-specific parts as the outcome's `extra` (the wire keeps version
// 1's untyped object; only this codec reads and writes its keys).
json ExtraToJson(const ResourceResult& r) {
  json extra = json::object();
  if (r.upload) {
    extra["need_upload"] = true;
    extra["partial_size"] = r.upload->partial_size;
    extra["partial_sha256"] = r.upload->partial_sha256;
  }
  if (r.unit) {
    extra["invocation_before"] = r.unit->invocation_before;
    extra["active_state"] = r.unit->active_state;
    if (!r.unit->invocation_after.empty()) extra["invocation_after"] = r.unit->invocation_after;
  }
  return extra;
}

// Each part is typed as it is read: a mistyped key fails the reply naming it.
Status ReadExtra(const json& extra, ResourceResult& r) {
  Fields f(extra, "resource reply extra");
  if (f.Bool("need_upload")) r.upload = UploadNeed{f.Uint("partial_size"), f.String("partial_sha256")};
  if (extra.contains("invocation_before") || extra.contains("active_state")) {
    r.unit = UnitState{f.String("invocation_before"), f.String("active_state"), f.String("invocation_after")};
  }
  return f.status();
}

json ResultToJson(const ResourceResult& r) {
  json commands = json::array();
  for (const ExecutedCommand& c : r.commands) {
    commands.push_back({{"argv", c.argv}, {"mutating", c.mutating}, {"exit_code", c.exit_code}});
  }
  json j = {{"changed", r.changed},   {"differences", r.differences}, {"failed", r.failed},
            {"commands", commands},   {"extra", ExtraToJson(r)},             {"has_backup", r.has_backup},
            {"timed_out", r.timed_out}};
  if (!r.diff.empty()) j["diff"] = r.diff;
  if (r.failed) {
    j["error"] = r.error;
    j["failed_command"] = r.failed_command;
    j["output"] = r.output;
  }
  return j;
}

Status ReadCommands(const json& list, std::vector<ExecutedCommand>& out) {
  for (const json& item : list) {
    Fields f(item, "resource reply command");
    ExecutedCommand c;
    c.argv = f.Strings("argv");
    c.mutating = f.Bool("mutating");
    c.exit_code = f.SmallInt("exit_code");
    if (!f.status().ok()) return f.status();
    out.push_back(std::move(c));
  }
  return Status::Ok();
}

}  // namespace

int ResourceResult::MutatingCommands() const {
  int count = 0;
  for (const ExecutedCommand& c : commands) count += c.mutating ? 1 : 0;
  return count;
}

// ------------------------------------------------------------- agent side

Frame EncodeHello(const Hello& hello) {
  return {{{"type", "hello"},
           {"protocol", hello.protocol},
           {"agent_version", hello.agent_version},
           {"pid", hello.pid},
           {"euid", hello.euid},
           {"arch", hello.arch},
           {"hostname", hello.hostname}},
          ""};
}

json RequestId(const Frame& frame) {
  if (!frame.header.is_object()) return nullptr;
  auto it = frame.header.find("id");
  return it == frame.header.end() ? json(nullptr) : *it;
}

Result<IncomingRequest> DecodeRequest(const Frame& frame) {
  Fields f(frame.header, "request");
  const std::string type = f.String("type", true);
  if (!f.status().ok()) return Status::InvalidArgument(f.status().message());
  IncomingRequest in{RequestId(frame), PingRequest{}};
  Fields r(frame.header, type + " request");
  if (type == "facts") {
    in.request = FactsRequest{r.Strings("packages")};
  } else if (type == "exec") {
    ExecRequest exec;
    exec.argv = r.Strings("argv", true);
    exec.env = r.StringMap("env");
    if (frame.header.contains("timeout_ms")) exec.timeout_ms = r.Int("timeout_ms");
    if (frame.header.contains("max_output_bytes")) exec.max_output_bytes = r.Uint("max_output_bytes");
    exec.stdin_data = frame.body;
    if (r.status().ok() && exec.argv.empty()) return Status::InvalidArgument("exec needs a non-empty argv");
    in.request = std::move(exec);
  } else if (type == "resource") {
    ResourceRequest resource;
    resource.kind = r.String("kind", true);
    if (const json* params = r.Structured("params", json::value_t::object)) resource.params = *params;
    resource.apply = r.Bool("apply");
    resource.body = frame.body;
    in.request = std::move(resource);
  } else if (type == "upload_chunk") {
    in.request = UploadChunkRequest{r.String("path", true), r.Uint("offset", true), frame.body};
  } else if (type == "reboot") {
    in.request = RebootRequest{r.SmallInt("delay_ms", false, 1000)};
  } else if (type == "ping") {
    in.request = PingRequest{};
  } else if (type == "shutdown") {
    in.request = ShutdownRequest{};
  } else {
    return Status::Unsupported("unknown request type '" + type + "'");
  }
  if (!r.status().ok()) return Status::InvalidArgument(r.status().message());
  return in;
}

Frame EncodeError(const json& id, const std::string& code, const std::string& message) {
  return {{{"type", "error"}, {"id", id}, {"code", code}, {"message", message}}, ""};
}

Frame EncodeEmptyReply(const json& id) { return ResultFrame(id, json::object()); }

Frame EncodeFactsReply(const json& id, const json& facts) { return ResultFrame(id, {{"facts", facts}}); }

Frame EncodeExecReply(const json& id, const ExecReply& reply) {
  return ResultFrame(id,
                {{"exit_code", reply.exit_code},
                 {"signal", reply.signal},
                 {"timed_out", reply.timed_out},
                 {"truncated", reply.truncated},
                 {"started", reply.started},
                 {"duration_ms", reply.duration_ms},
                 {"stdout_bytes", reply.stdout_data.size()}},
                reply.stdout_data + reply.stderr_data);
}

Frame EncodeResourceReply(const json& id, const ResourceResult& result) {
  return ResultFrame(id, {{"outcome", ResultToJson(result)}}, result.has_backup ? result.backup : "");
}

// -------------------------------------------------------- controller side

Frame EncodeRequest(int64_t id, const Request& request) {
  json header = {{"id", id}};
  std::string body;
  std::visit(Overloaded{
                 [&](const FactsRequest& r) {
                   header["type"] = "facts";
                   if (!r.packages.empty()) header["packages"] = r.packages;
                 },
                 [&](const ExecRequest& r) {
                   header["type"] = "exec";
                   header["argv"] = r.argv;
                   if (!r.env.empty()) header["env"] = r.env;
                   if (r.timeout_ms) header["timeout_ms"] = *r.timeout_ms;
                   if (r.max_output_bytes) header["max_output_bytes"] = *r.max_output_bytes;
                   body = r.stdin_data;
                 },
                 [&](const ResourceRequest& r) {
                   header["type"] = "resource";
                   header["kind"] = r.kind;
                   header["params"] = r.params;
                   header["apply"] = r.apply;
                   body = r.body;
                 },
                 [&](const UploadChunkRequest& r) {
                   header["type"] = "upload_chunk";
                   header["path"] = r.path;
                   header["offset"] = r.offset;
                   body = r.data;
                 },
                 [&](const RebootRequest& r) {
                   header["type"] = "reboot";
                   header["delay_ms"] = r.delay_ms;
                 },
                 [&](const PingRequest&) { header["type"] = "ping"; },
                 [&](const ShutdownRequest&) { header["type"] = "shutdown"; },
             },
             request);
  return {std::move(header), std::move(body)};
}

Result<Hello> DecodeHello(const Frame& frame) {
  Fields f(frame.header, "hello");
  const std::string type = f.String("type", true);
  if (!f.status().ok()) return f.status();
  if (type != "hello") return Status::Corruption("expected the agent's hello, got a '" + type + "' frame");
  Hello hello;
  hello.protocol = f.SmallInt("protocol", true);
  hello.agent_version = f.String("agent_version");
  hello.pid = f.Int("pid");
  hello.euid = f.Int("euid", false, -1);
  hello.arch = f.String("arch");
  hello.hostname = f.String("hostname");
  if (!f.status().ok()) return f.status();
  return hello;
}

bool Answers(const Frame& reply, int64_t id) {
  if (!reply.header.is_object()) return false;
  auto it = reply.header.find("id");
  if (it == reply.header.end() || it->is_null()) {
    auto type = reply.header.find("type");
    return type != reply.header.end() && *type == "error";
  }
  return it->is_number_integer() && it->get<int64_t>() == id;
}

Status DecodeEmptyReply(const Frame& frame) { return ReplyStatus(frame, "request"); }

Result<json> DecodeFactsReply(const Frame& frame) {
  if (Status s = ReplyStatus(frame, "facts"); !s.ok()) return s;
  Fields f(frame.header, "facts reply");
  const json* facts = f.Structured("facts", json::value_t::object, true);
  if (!facts) return f.status();
  return *facts;
}

Result<ExecReply> DecodeExecReply(const Frame& frame) {
  if (Status s = ReplyStatus(frame, "exec"); !s.ok()) return s;
  Fields f(frame.header, "exec reply");
  ExecReply reply;
  reply.exit_code = f.SmallInt("exit_code", true, -1);
  reply.signal = f.SmallInt("signal");
  reply.timed_out = f.Bool("timed_out");
  reply.truncated = f.Bool("truncated");
  reply.started = f.Bool("started", true);
  reply.duration_ms = f.Int("duration_ms");
  const uint64_t stdout_bytes = frame.header.contains("stdout_bytes") ? f.Uint("stdout_bytes") : frame.body.size();
  if (!f.status().ok()) return f.status();
  if (stdout_bytes > frame.body.size()) {
    return Status::Corruption("malformed exec reply: stdout_bytes " + std::to_string(stdout_bytes) +
                              " is more than the body's " + std::to_string(frame.body.size()) + " bytes");
  }
  reply.stdout_data = frame.body.substr(0, stdout_bytes);
  reply.stderr_data = frame.body.substr(stdout_bytes);
  return reply;
}

Result<ResourceResult> DecodeResourceReply(const Frame& frame) {
  if (Status s = ReplyStatus(frame, "resource"); !s.ok()) return s;
  Fields top(frame.header, "resource reply");
  const json* outcome = top.Structured("outcome", json::value_t::object, true);
  if (!outcome) return top.status();
  Fields f(*outcome, "resource reply outcome");
  ResourceResult r;
  r.changed = f.Bool("changed");
  r.differences = f.Strings("differences");
  r.diff = f.String("diff");
  r.failed = f.Bool("failed");
  r.error = f.String("error");
  r.failed_command = f.String("failed_command");
  r.output = f.String("output");
  r.timed_out = f.Bool("timed_out");
  r.has_backup = f.Bool("has_backup");
  const json* extra = f.Structured("extra", json::value_t::object);
  const json* commands = f.Structured("commands", json::value_t::array);
  if (!f.status().ok()) return f.status();
  if (extra) {
    if (Status read = ReadExtra(*extra, r); !read.ok()) return read;
  }
  if (commands) {
    if (Status read = ReadCommands(*commands, r.commands); !read.ok()) return read;
  }
  if (r.failed && r.error.empty()) r.error = "failed";
  if (r.has_backup) r.backup = frame.body;
  return r;
}

}  // namespace clusterctl::agent_protocol
