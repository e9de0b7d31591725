// Colour for the status words of the human output (ok, changed, failed,
// unreachable), and when to use it: only on a terminal, never in JSON, and
// not when NO_COLOR is set (https://no-color.org) unless --color=always.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clusterctl {

enum class ColourChoice { kAuto, kAlways, kNever };  // --color=auto|always|never

std::optional<ColourChoice> ParseColourChoice(std::string_view text);

// kAlways: yes; kNever: no; kAuto: when stdout is a terminal and `no_color`
// (NO_COLOR's value, or null) is unset or empty.
bool UseColour(ColourChoice choice, bool stdout_is_terminal, const char* no_color);

// `word` wrapped in its ANSI colour when `enabled` and it is a status word
// (ok green, changed yellow, failed red, unreachable magenta, in any case);
// otherwise `word` unchanged.
std::string ColourStatus(std::string_view word, bool enabled);

}  // namespace clusterctl
