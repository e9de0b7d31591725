// Small string helpers shared by the controller, the inventory and the agent.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterctl {

std::string_view Trim(std::string_view s);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
std::vector<std::string> Split(std::string_view s, char separator);
// Non-empty, and every byte an ASCII letter, digit or one of `allowed`: a
// value that is one word in a configuration file (names, paths, options).
bool IsAlnumOr(std::string_view text, std::string_view allowed);
// ASCII case conversion (tool output keywords, never user text with non-ASCII letters).
std::string AsciiLower(std::string_view s);
std::string AsciiUpper(std::string_view s);

std::string Join(const std::vector<std::string>& parts, std::string_view separator);

// A number as people write it, in at most six significant digits: 1, 0.5,
// 1e-06, 65520 (printf's %g).
std::string ShortNumber(double value);

// Edit distance with transpositions of neighbours (optimal string
// alignment: "tpye" is one edit from "type"), for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a plausible
// typo (distance at most 2, or 1 for very short words); nullopt otherwise.
std::optional<std::string> ClosestMatch(std::string_view word,
                                        const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is close.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// Byte offset of the first byte that breaks UTF-8 well-formedness (overlong
// forms, surrogates and code points above U+10FFFF included), or nullopt.
std::optional<size_t> FindInvalidUtf8(std::string_view text);

// The longest prefix of at most `max_bytes` that does not end inside a
// UTF-8 sequence (a cut made for storage must not split a character).
std::string_view Utf8Prefix(std::string_view text, size_t max_bytes);

// 1-based line and column of a byte offset in `text`.
struct LineColumn {
  int line = 1;
  int column = 1;
};
LineColumn LineColumnAt(std::string_view text, size_t offset);

// Shell-style glob: '*' any run of characters, '?' one character.
bool GlobMatch(std::string_view pattern, std::string_view text);

// A printable rendering of arbitrary bytes for error messages: printable ASCII
// kept, everything else as \xNN, cut after `max_bytes`.
std::string Printable(std::string_view bytes, size_t max_bytes = 60);

// An InfiniBand GUID in one form, "0x" and 16 lower-case hex digits, from
// any of the forms tools print: ibstat "0x946dae0300cde72c", ibv_devinfo and
// sysfs "7cfe:9003:00a5:95c0", or a port GID ("fe80:0000:0000:0000:0c42:
// a103:0003:1234", whose last 64 bits are the port GUID). Empty when the
// text is none of these.
std::string NormalizeGuid(std::string_view text);

}  // namespace clusterctl
