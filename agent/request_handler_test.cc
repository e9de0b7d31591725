#include "agent/request_handler.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("the handler answers exec with exit code, stdout and stderr in the body") {
  RequestHandler handler;
  agent_protocol::Frame request{{{"id", 7}, {"type", "exec"}, {"argv", {"sh", "-c", "echo out; echo err >&2; exit 2"}}},
                                ""};
  RequestHandler::Response response = handler.Handle(request);
  CHECK(response.header["id"] == 7);
  CHECK(response.header["exit_code"] == 2);
  CHECK(response.header["stdout_bytes"] == 4);
  CHECK(response.body == "out\nerr\n");
}

TEST_CASE("unknown and malformed requests get errors, not crashes") {
  RequestHandler handler;
  auto unknown = handler.Handle({{{"id", 1}, {"type", "reformat_disk"}}, ""});
  CHECK(unknown.header["type"] == "error");
  CHECK(unknown.header["code"] == "unknown_type");
  auto malformed = handler.Handle({{{"id", 2}, {"type", "exec"}, {"argv", "not a list"}}, ""});
  CHECK(malformed.header["code"] == "bad_request");
  auto empty = handler.Handle({{{"id", 3}, {"type", "exec"}, {"argv", nlohmann::json::array()}}, ""});
  CHECK(empty.header["code"] == "bad_request");
}

TEST_CASE("facts and shutdown") {
  RequestHandler handler;
  auto facts = handler.Handle({{{"id", 1}, {"type", "facts"}}, ""});
  CHECK(facts.header["facts"].contains("cpu"));
  CHECK(facts.header["facts"]["cpu"]["cpus"].get<int>() >= 1);
  auto bye = handler.Handle({{{"id", 2}, {"type", "shutdown"}}, ""});
  CHECK(bye.shutdown);
}

}  // namespace clusterctl
