#include "agent/protocol/frame.h"

#include <doctest/doctest.h>

namespace clusterctl::agent_protocol {

TEST_CASE("frames round-trip, one byte at a time, after junk before the preamble") {
  std::string stream = "Welcome to node01!\n" + Preamble() + EncodeFrame({{"type", "hello"}}) +
                       EncodeFrame({{"id", 1}, {"type", "result"}}, std::string("a\0b", 3));
  FrameDecoder decoder(true);
  std::vector<Frame> frames;
  for (char c : stream) {
    decoder.Feed(std::string_view(&c, 1));
    while (auto frame = decoder.Next()) frames.push_back(*frame);
  }
  REQUIRE(decoder.status().ok());
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].header["type"] == "hello");
  CHECK(frames[1].body == std::string("a\0b", 3));
  CHECK(decoder.skipped() == "Welcome to node01!");
}

TEST_CASE("a different protocol version is refused with both versions named") {
  FrameDecoder decoder(true);
  decoder.Feed("\nCLUSTERCTL-AGENT/7\n");
  CHECK_FALSE(decoder.Next());
  CHECK(decoder.status().message() == "agent speaks protocol 7, this controller speaks 1");
}

TEST_CASE("absurd lengths and non-JSON headers are errors, not allocations") {
  FrameDecoder decoder(false);
  decoder.Feed(std::string("\xff\xff\xff\xff\0\0\0\0", 8));
  CHECK_FALSE(decoder.Next());
  CHECK(decoder.status().code() == Status::Code::kCorruption);

  FrameDecoder junk(false);
  junk.Feed(std::string("\0\0\0\3\0\0\0\0abc", 11));
  CHECK_FALSE(junk.Next());
  CHECK(junk.status().message() == "frame header is not a JSON object");
}

TEST_CASE("output without a preamble is refused after a bounded search") {
  FrameDecoder decoder(true);
  decoder.Feed(std::string(kMaxPreambleSearch + 10, 'x'));
  CHECK_FALSE(decoder.Next());
  CHECK(decoder.status().message().find("no agent preamble") == 0);
}

}  // namespace clusterctl::agent_protocol
