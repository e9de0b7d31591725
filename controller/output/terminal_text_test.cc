#include "controller/output/terminal_text.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("TerminalText shows a node's escape sequences instead of letting the terminal obey them") {
  // The window title, a cleared screen, a bell, a cursor move and DEL.
  CHECK(TerminalText("\x1b]0;owned\x07ok", TextShape::kLines) == "\\x1b]0;owned\\x07ok");
  CHECK(TerminalText("\x1b[2J\x1b[H", TextShape::kLines) == "\\x1b[2J\\x1b[H");
  CHECK(TerminalText("a\x7f" "b\x08", TextShape::kLines) == "a\\x7fb\\x08");
  // A lone CR would overwrite the line printed so far.
  CHECK(TerminalText("safe\rrm -rf", TextShape::kLines) == "safe\\x0drm -rf");
}

TEST_CASE("TerminalText keeps the lines of command output, and makes one line of a cell") {
  const std::string output = "col1\tcol2\nline two\r\n";
  CHECK(TerminalText(output, TextShape::kLines) == output);
  CHECK(TerminalText(output, TextShape::kOneLine) == "col1\\x09col2\\x0aline two\\x0d\\x0a");
}

TEST_CASE("TerminalText keeps UTF-8 text and shows C1 controls and bytes that are not UTF-8") {
  CHECK(TerminalText("µs → 45 °C, \\n stays", TextShape::kOneLine) == "µs → 45 °C, \\n stays");
  CHECK(TerminalText("\xc2\x9b" "2J", TextShape::kLines) == "\\xc2\\x9b2J");  // U+009B, CSI
  CHECK(TerminalText("\x9b" "2J", TextShape::kLines) == "\\x9b2J");          // CSI as a raw 8-bit byte
  CHECK(TerminalText("\xff\xc3", TextShape::kLines) == "\\xff\\xc3");       // invalid, then cut short
  CHECK(TerminalText("\xed\xa0\x80", TextShape::kLines) == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(TerminalText("\xf0\x9f\x98\x80", TextShape::kLines) == "\xf0\x9f\x98\x80");
}

}  // namespace clusterctl
