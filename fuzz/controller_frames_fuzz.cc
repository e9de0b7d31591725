// The controller's side of the protocol: what a (hostile) node sends, from
// the preamble through the hello to replies of every kind.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/protocol/messages.h"
#include "common/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clusterctl::agent_protocol;
  FrameDecoder decoder(true);
  decoder.Feed(std::string_view(reinterpret_cast<const char*>(data), size));
  int index = 0;
  while (auto frame = decoder.Next()) {
    (void)Answers(*frame, index);
    switch (index++ % 5) {
      case 0: (void)DecodeHello(*frame); break;
      case 1: (void)DecodeFactsReply(*frame); break;
      case 2: (void)DecodeExecReply(*frame); break;
      case 3: {
        auto result = DecodeResourceReply(*frame);
        if (result.ok() && result->upload) (void)result->upload->partial_sha256.size();  // a kind's typed part
        break;
      }
      default: (void)DecodeEmptyReply(*frame); break;
    }
    (void)clusterctl::JsonText(frame->header);  // printed and copied without recursing without bound
  }
  return 0;
}
