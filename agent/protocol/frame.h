// Agent protocol framing (docs/agent-protocol.md), shared by the agent and
// the controller. Pure: no I/O here.
//
// The agent first writes the preamble line "\nCLUSTERCTL-AGENT/<protocol>\n";
// the controller skips anything before it (a noisy shell rc file) and then
// reads frames. Each frame is
//
//   u32 header_length (big-endian) | u32 body_length (big-endian)
//   header: UTF-8 JSON object       | body: raw bytes (file content, output)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace clusterctl::agent_protocol {

inline constexpr int kProtocolVersion = 1;
inline constexpr size_t kMaxHeaderBytes = 16u << 20;
inline constexpr size_t kMaxBodyBytes = 64u << 20;
inline constexpr size_t kMaxPreambleSearch = 64u << 10;
// Deeper headers are refused before they are parsed: copying, dumping or
// destroying a JSON value recurses once per level, so a peer's 100,000-deep
// header would otherwise overflow the reader's stack.
inline constexpr int kMaxHeaderDepth = 64;

std::string Preamble();  // "\nCLUSTERCTL-AGENT/1\n"

struct Frame {
  nlohmann::json header;
  std::string body;
};

std::string EncodeFrame(const nlohmann::json& header, std::string_view body = {});

// Whether the JSON text nests arrays and objects more than `limit` levels
// deep (brackets inside strings do not count). Linear, no recursion.
bool JsonNestsDeeperThan(std::string_view text, int limit);

// Incremental decoder: Feed() bytes as they arrive, then Next() until it
// returns nullopt. A malformed stream turns into a sticky error status.
class FrameDecoder {
 public:
  // Whether the decoder must first find the preamble (controller side).
  explicit FrameDecoder(bool expect_preamble) : awaiting_preamble_(expect_preamble) {}

  void Feed(std::string_view bytes);
  // The next complete frame, nullopt when more bytes are needed or on error.
  std::optional<Frame> Next();
  const Status& status() const { return status_; }
  // Bytes that came before the preamble (for a diagnostic).
  const std::string& skipped() const { return skipped_; }
  size_t buffered() const { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  size_t offset_ = 0;
  bool awaiting_preamble_;
  std::string skipped_;
  Status status_;
};

}  // namespace clusterctl::agent_protocol
