// The agent's side of the protocol: a byte stream from the controller,
// framed and decoded into requests (what main.cc and the request handler
// do before acting). Requests are decoded, never run.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/protocol/messages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clusterctl::agent_protocol;
  FrameDecoder decoder(false);
  // In two pieces: a frame split across reads must decode the same.
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  decoder.Feed(bytes.substr(0, size / 2));
  while (auto frame = decoder.Next()) (void)DecodeRequest(*frame);
  decoder.Feed(bytes.substr(size / 2));
  while (auto frame = decoder.Next()) {
    auto request = DecodeRequest(*frame);
    if (!request.ok()) (void)EncodeFrame(EncodeError(RequestId(*frame), kBadRequest, request.status().message()).header);
  }
  return 0;
}
