#include "controller/output/terminal_text.h"

#include <cstdio>

namespace clusterctl {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Bytes of the well-formed UTF-8 character starting at text[at] (2 to 4), or
// 0 when none starts there: overlong forms, surrogates and code points above
// U+10FFFF are not well-formed.
size_t Utf8CharacterLength(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  const auto second = static_cast<unsigned char>(text[at + 1]);
  if (second < low || second > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!IsContinuation(static_cast<unsigned char>(text[at + i]))) return 0;
  }
  return length;
}

void AppendEscaped(std::string& out, unsigned char c) {
  char buffer[5];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
  out += buffer;
}

bool Kept(std::string_view text, size_t at, TextShape shape) {
  if (shape != TextShape::kLines) return false;
  const char c = text[at];
  return c == '\n' || c == '\t' || (c == '\r' && at + 1 < text.size() && text[at + 1] == '\n');
}

}  // namespace

std::string TerminalText(std::string_view text, TextShape shape) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c < 0x80) {
      if ((c >= 0x20 && c != 0x7F) || Kept(text, at, shape)) {
        out += static_cast<char>(c);
      } else {
        AppendEscaped(out, c);
      }
      ++at;
      continue;
    }
    const size_t length = Utf8CharacterLength(text, at);
    // U+0080..U+009F (C2 80..C2 9F) are the C1 controls: 0x9B is CSI.
    const bool c1 = length == 2 && c == 0xC2 && static_cast<unsigned char>(text[at + 1]) <= 0x9F;
    if (length == 0 || c1) {
      for (size_t i = 0; i < (c1 ? 2 : 1); ++i) AppendEscaped(out, static_cast<unsigned char>(text[at + i]));
      at += c1 ? 2 : 1;
      continue;
    }
    out.append(text.substr(at, length));
    at += length;
  }
  return out;
}

}  // namespace clusterctl
