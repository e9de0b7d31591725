// Text from nodes (command output, facts, validation evidence, errors) as it
// may reach the admin's terminal. A terminal interprets control characters:
// ESC sequences retitle the window (\x1b]0;...), clear the screen (\x1b[2J)
// or move the cursor to overwrite what was printed; a lone CR does the same.
// Every such character is shown as the four characters \xNN instead.
// JSON output needs none of this: JsonText escapes control characters.
#pragma once

#include <string>
#include <string_view>

namespace clusterctl {

enum class TextShape {
  kLines,    // several lines: LF and tab kept, CR kept only before LF (CRLF)
  kOneLine,  // a table cell or a message: LF, CR and tab shown too
};

// `text` with every C0 control character (but what `shape` keeps), DEL, the
// C1 controls U+0080..U+009F and every byte that is not part of well-formed
// UTF-8 replaced by \xNN (one per byte). Printable ASCII and other UTF-8
// characters are kept, backslashes included.
std::string TerminalText(std::string_view text, TextShape shape);

}  // namespace clusterctl
