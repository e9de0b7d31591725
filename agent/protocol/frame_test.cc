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

TEST_CASE("a header nested deeper than the limit is refused before it is parsed (the review's 100,000-deep hello)") {
  const std::string deep = "{\"type\":\"hello\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  std::string header_and_lengths;
  header_and_lengths += static_cast<char>((deep.size() >> 24) & 0xFF);
  header_and_lengths += static_cast<char>((deep.size() >> 16) & 0xFF);
  header_and_lengths += static_cast<char>((deep.size() >> 8) & 0xFF);
  header_and_lengths += static_cast<char>(deep.size() & 0xFF);
  header_and_lengths += std::string(4, '\0');
  FrameDecoder decoder(true);
  decoder.Feed(Preamble() + header_and_lengths + deep);
  CHECK_FALSE(decoder.Next());
  CHECK(decoder.status().message() == "frame header nests deeper than 64 levels");

  // At the limit it decodes; brackets inside strings do not count.
  nlohmann::json ok = {{"type", "result"}, {"text", std::string(500, '[')}};
  for (int i = 0; i < 62; ++i) ok = {{"x", ok}};
  FrameDecoder fine(false);
  fine.Feed(EncodeFrame(ok));
  CHECK(fine.Next());
  CHECK(fine.status().ok());
  CHECK_FALSE(JsonNestsDeeperThan(R"({"a":"[[[[\"[[[["})", 1));
  CHECK(JsonNestsDeeperThan(R"({"a":[{"b":1}]})", 2));
}

TEST_CASE("a preamble line that never ends is refused at once, not buffered (the review's 200 MiB line)") {
  FrameDecoder decoder(true);
  decoder.Feed("\nCLUSTERCTL-AGENT/" + std::string(4096, '1'));
  CHECK_FALSE(decoder.Next());
  CHECK(decoder.status().message() == "the agent's preamble line does not end");
}

}  // namespace clusterctl::agent_protocol
