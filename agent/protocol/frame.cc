#include "agent/protocol/frame.h"

#include "common/json_text.h"

namespace clusterctl::agent_protocol {
namespace {

void PutU32(std::string& out, uint32_t v) {
  out += static_cast<char>((v >> 24) & 0xFF);
  out += static_cast<char>((v >> 16) & 0xFF);
  out += static_cast<char>((v >> 8) & 0xFF);
  out += static_cast<char>(v & 0xFF);
}

uint32_t GetU32(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

}  // namespace

bool JsonNestsDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // whatever follows a backslash is part of the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

std::string Preamble() { return "\nCLUSTERCTL-AGENT/" + std::to_string(kProtocolVersion) + "\n"; }

std::string EncodeFrame(const nlohmann::json& header, std::string_view body) {
  std::string text = JsonText(header);
  std::string out;
  out.reserve(8 + text.size() + body.size());
  PutU32(out, static_cast<uint32_t>(text.size()));
  PutU32(out, static_cast<uint32_t>(body.size()));
  out += text;
  out.append(body.data(), body.size());
  return out;
}

void FrameDecoder::Feed(std::string_view bytes) {
  if (!status_.ok()) return;
  // Compact occasionally so a long stream does not grow the buffer forever.
  if (offset_ > 0 && offset_ > buffer_.size() / 2) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  buffer_.append(bytes.data(), bytes.size());
}

std::optional<Frame> FrameDecoder::Next() {
  if (!status_.ok()) return std::nullopt;
  if (awaiting_preamble_) {
    const std::string marker = "CLUSTERCTL-AGENT/";
    size_t at = buffer_.find(marker, offset_);
    if (at == std::string::npos) {
      if (buffer_.size() - offset_ > kMaxPreambleSearch) {
        status_ = Status::Corruption("no agent preamble in the first " + std::to_string(kMaxPreambleSearch) +
                                     " bytes of output");
      }
      return std::nullopt;
    }
    size_t end = buffer_.find('\n', at);
    if (end == std::string::npos) {
      // "CLUSTERCTL-AGENT/1\n": a version is a few digits, never megabytes.
      if (buffer_.size() - at > marker.size() + 16) {
        status_ = Status::Corruption("the agent's preamble line does not end");
      }
      return std::nullopt;
    }
    std::string version = buffer_.substr(at + marker.size(), end - at - marker.size());
    skipped_ = buffer_.substr(offset_, at - offset_);
    while (!skipped_.empty() && skipped_.back() == '\n') skipped_.pop_back();
    if (version != std::to_string(kProtocolVersion)) {
      status_ = Status::Unsupported("agent speaks protocol " + version + ", this controller speaks " +
                                    std::to_string(kProtocolVersion));
      return std::nullopt;
    }
    offset_ = end + 1;
    awaiting_preamble_ = false;
  }
  if (buffer_.size() - offset_ < 8) return std::nullopt;
  const uint32_t header_length = GetU32(buffer_.data() + offset_);
  const uint32_t body_length = GetU32(buffer_.data() + offset_ + 4);
  if (header_length > kMaxHeaderBytes || body_length > kMaxBodyBytes || header_length == 0) {
    status_ = Status::Corruption("bad frame lengths (header " + std::to_string(header_length) + ", body " +
                                 std::to_string(body_length) + ")");
    return std::nullopt;
  }
  if (buffer_.size() - offset_ < 8 + size_t{header_length} + body_length) return std::nullopt;
  const std::string_view header_text(buffer_.data() + offset_ + 8, header_length);
  if (JsonNestsDeeperThan(header_text, kMaxHeaderDepth)) {
    status_ = Status::Corruption("frame header nests deeper than " + std::to_string(kMaxHeaderDepth) + " levels");
    return std::nullopt;
  }
  Frame frame;
  frame.header = nlohmann::json::parse(buffer_.begin() + static_cast<std::ptrdiff_t>(offset_ + 8),
                                       buffer_.begin() + static_cast<std::ptrdiff_t>(offset_ + 8 + header_length),
                                       nullptr, false);
  if (frame.header.is_discarded() || !frame.header.is_object()) {
    status_ = Status::Corruption("frame header is not a JSON object");
    return std::nullopt;
  }
  frame.body = buffer_.substr(offset_ + 8 + header_length, body_length);
  offset_ += 8 + size_t{header_length} + body_length;
  return frame;
}

}  // namespace clusterctl::agent_protocol
