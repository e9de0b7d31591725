// The daemon's request bodies (controller/daemon/request_body): arbitrary
// bytes as the body of a POST, read the way the deploy, validate and stop
// endpoints read theirs. The HTTP framing itself is Boost.Beast's parser.
#include <cstddef>
#include <cstdint>
#include <string>

#include "controller/daemon/request_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  clusterctl::HttpRequest request;
  request.content_type = "application/json";
  request.body.assign(reinterpret_cast<const char*>(data), size);
  auto parsed = clusterctl::RequestBody::Parse(
      request, {"limit", "roles", "verify", "batch", "max_fail_percent", "checks", "deadline_s", "grace_s"});
  if (auto* body = std::get_if<clusterctl::RequestBody>(&parsed)) {
    std::string text;
    std::vector<std::string> list;
    bool flag = false;
    int number = 0;
    body->String("limit", text);
    body->String("batch", text);
    body->StringList("roles", list);
    body->StringList("checks", list);
    body->Bool("verify", flag);
    body->Int("max_fail_percent", 0, 100, number);
    body->Int("deadline_s", 10, 86400, number);
    (void)body->error();
  }
  return 0;
}
