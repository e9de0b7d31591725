#include "controller/output/status_colour.h"

#include "common/strings.h"

namespace clusterctl {
namespace {

// The SGR code of a status word, or null.
const char* ColourCode(std::string_view word) {
  const std::string lower = AsciiLower(std::string(word));
  if (lower == "ok") return "32";
  if (lower == "changed") return "33";
  if (lower == "failed") return "31";
  if (lower == "unreachable") return "35";
  return nullptr;
}

}  // namespace

std::optional<ColourChoice> ParseColourChoice(std::string_view text) {
  if (text == "auto") return ColourChoice::kAuto;
  if (text == "always") return ColourChoice::kAlways;
  if (text == "never") return ColourChoice::kNever;
  return std::nullopt;
}

bool UseColour(ColourChoice choice, bool stdout_is_terminal, const char* no_color) {
  if (choice != ColourChoice::kAuto) return choice == ColourChoice::kAlways;
  return stdout_is_terminal && (no_color == nullptr || *no_color == '\0');
}

std::string ColourStatus(std::string_view word, bool enabled) {
  const char* code = enabled ? ColourCode(word) : nullptr;
  if (!code) return std::string(word);
  return std::string("\033[") + code + "m" + std::string(word) + "\033[0m";
}

}  // namespace clusterctl
