#include "agent/protocol/messages.h"

#include <doctest/doctest.h>

namespace clusterctl::agent_protocol {

// A frame as it crosses the wire: encoded, then decoded.
Frame Wire(const Frame& frame) {
  FrameDecoder decoder(false);
  decoder.Feed(EncodeFrame(frame.header, frame.body));
  auto decoded = decoder.Next();
  REQUIRE(decoded);
  return *decoded;
}

TEST_CASE("every request round-trips through the codec, body included") {
  ExecRequest exec;
  exec.argv = {"sh", "-c", "echo $X"};
  exec.env = {{"X", "1"}};
  exec.timeout_ms = 1500;
  exec.stdin_data = std::string("in\0put", 6);
  auto in = DecodeRequest(Wire(EncodeRequest(7, exec)));
  REQUIRE(in.ok());
  CHECK(in->id == 7);
  auto* e = std::get_if<ExecRequest>(&in->request);
  REQUIRE(e);
  CHECK(e->argv == exec.argv);
  CHECK(e->env == exec.env);
  CHECK(e->timeout_ms == 1500);
  CHECK(e->stdin_data == exec.stdin_data);

  ResourceRequest resource{"file", {{"path", "/etc/x"}}, "content", true};
  auto r = DecodeRequest(Wire(EncodeRequest(8, resource)));
  REQUIRE(r.ok());
  auto* rr = std::get_if<ResourceRequest>(&r->request);
  REQUIRE(rr);
  CHECK(rr->kind == "file");
  CHECK(rr->params["path"] == "/etc/x");
  CHECK(rr->body == "content");
  CHECK(rr->apply);

  auto chunk = DecodeRequest(Wire(EncodeRequest(9, UploadChunkRequest{"/x", 4096, "data"})));
  REQUIRE(chunk.ok());
  CHECK(std::get<UploadChunkRequest>(chunk->request).offset == 4096);
  CHECK(std::holds_alternative<ShutdownRequest>(DecodeRequest(EncodeRequest(10, ShutdownRequest{}))->request));
  CHECK(std::get<RebootRequest>(DecodeRequest(EncodeRequest(11, RebootRequest{250}))->request).delay_ms == 250);
}

TEST_CASE("replies round-trip: exec output split at stdout_bytes, a resource result with its backup") {
  ExecReply exec;
  exec.exit_code = 3;
  exec.stdout_data = "out\n";
  exec.stderr_data = "err\n";
  auto e = DecodeExecReply(Wire(EncodeExecReply(5, exec)));
  REQUIRE(e.ok());
  CHECK(e->exit_code == 3);
  CHECK(e->stdout_data == "out\n");
  CHECK(e->stderr_data == "err\n");

  ResourceResult result;
  result.Differs("content");
  result.has_backup = true;
  result.backup = "old";
  result.upload = UploadNeed{42, "abc"};
  result.unit = UnitState{"inv-1", "active", ""};
  result.commands.push_back({{"systemctl", "restart", "x"}, true, 0});
  auto r = DecodeResourceReply(Wire(EncodeResourceReply(6, result)));
  REQUIRE(r.ok());
  CHECK(r->changed);
  CHECK(r->differences == std::vector<std::string>{"content"});
  CHECK(r->backup == "old");
  CHECK(r->MutatingCommands() == 1);
  REQUIRE(r->upload.has_value());
  CHECK(r->upload->partial_size == 42);
  CHECK(r->upload->partial_sha256 == "abc");
  REQUIRE(r->unit.has_value());
  CHECK(r->unit->invocation_before == "inv-1");
  CHECK(r->unit->active_state == "active");
  CHECK(r->unit->invocation_after.empty());
  ResourceResult plain;
  auto none = DecodeResourceReply(Wire(EncodeResourceReply(7, plain)));
  REQUIRE(none.ok());
  CHECK_FALSE(none->upload.has_value());  // a kind's part only where that kind set it
  CHECK_FALSE(none->unit.has_value());
}

TEST_CASE("a kind's reply part of the wrong type fails the reply naming it") {
  const nlohmann::json outcome = {{"extra", {{"need_upload", true}, {"partial_size", "many"}}}};
  CHECK(DecodeResourceReply({{{"type", "result"}, {"id", 1}, {"outcome", outcome}}, ""}).status().message() ==
        "malformed resource reply extra: 'partial_size' is string, not a non-negative integer");
  const nlohmann::json unit = {{"extra", {{"active_state", 3}}}};
  CHECK(DecodeResourceReply({{{"type", "result"}, {"id", 1}, {"outcome", unit}}, ""}).status().code() ==
        Status::Code::kCorruption);
}

TEST_CASE("hostile or broken replies are statuses naming the problem, never exceptions") {
  CHECK(DecodeResourceReply({{{"type", "result"}, {"id", 1}}, ""}).status().message() ==
        "malformed resource reply: 'outcome' is missing");
  CHECK(DecodeResourceReply({{{"type", "result"}, {"id", 1}, {"outcome", {{"differences", "x"}}}}, ""})
            .status()
            .message() == "malformed resource reply outcome: 'differences' is string, not a list of strings");
  CHECK(DecodeResourceReply({{{"type", "result"}, {"id", 1}, {"outcome", {{"commands", {{{"argv", 5}}}}}}}, ""})
            .status()
            .message() == "malformed resource reply command: 'argv' is number, not a list of strings");
  CHECK(DecodeExecReply({{{"type", "result"}, {"id", 1}, {"exit_code", 0}, {"stdout_bytes", 99}}, "short"})
            .status()
            .message() == "malformed exec reply: stdout_bytes 99 is more than the body's 5 bytes");
  CHECK(DecodeExecReply({{{"type", "result"}, {"id", 1}, {"exit_code", 1e300}}, ""}).status().code() ==
        Status::Code::kCorruption);
  CHECK(DecodeFactsReply({{{"type", "result"}, {"id", 1}, {"facts", "none"}}, ""}).status().message() ==
        "malformed facts reply: 'facts' is string, not an object");
  CHECK(DecodeEmptyReply({{{"type", 42}}, ""}).message() ==
        "malformed request reply: 'type' is number, not a string");
  CHECK(DecodeHello({{{"type", "result"}}, ""}).status().message() == "expected the agent's hello, got a 'result' frame");
  CHECK(DecodeHello({{{"type", "hello"}, {"protocol", "1"}}, ""}).status().code() == Status::Code::kCorruption);
  // The agent's own error for a frame it could not read carries a null id;
  // it answers the outstanding request instead of being thrown on.
  Frame bad_frame = EncodeError(nullptr, kBadFrame, "bad frame lengths");
  CHECK(Answers(bad_frame, 17));
  CHECK(DecodeResourceReply(bad_frame).status().message() == "agent: bad frame lengths");
  CHECK_FALSE(Answers({{{"type", "result"}, {"id", nullptr}}, ""}, 17));
  CHECK_FALSE(Answers({{{"type", "result"}, {"id", "17"}}, ""}, 17));
  CHECK(Answers({{{"type", "result"}, {"id", 17}}, ""}, 17));
}

TEST_CASE("the agent side refuses malformed requests with a code and keeps their id") {
  auto unknown = DecodeRequest({{{"type", "reformat_disk"}, {"id", 1}}, ""});
  CHECK(unknown.status().code() == Status::Code::kUnsupported);
  auto malformed = DecodeRequest({{{"type", "exec"}, {"id", 2}, {"argv", "not a list"}}, ""});
  CHECK(malformed.status().code() == Status::Code::kInvalidArgument);
  CHECK(malformed.status().message() == "malformed exec request: 'argv' is string, not a list of strings");
  CHECK(DecodeRequest({{{"type", "exec"}, {"id", 3}, {"argv", nlohmann::json::array()}}, ""}).status().message() ==
        "exec needs a non-empty argv");
  CHECK(DecodeRequest({{{"type", "upload_chunk"}, {"path", "/x"}, {"offset", -5}}, ""}).status().message() ==
        "malformed upload_chunk request: 'offset' is number, not a non-negative integer");
  CHECK(RequestId({{{"type", "exec"}, {"id", 9}}, ""}) == 9);
  CHECK(RequestId({{{"type", "exec"}}, ""}).is_null());
}

}  // namespace clusterctl::agent_protocol
