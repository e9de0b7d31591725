#include "agent/resources/names.h"

#include "common/strings.h"

namespace clusterctl::agent {
namespace {

bool IsLowerOrDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerOrDigit(c) || (c >= 'A' && c <= 'Z'); }

// Whether `text` is a `first` character followed by `rest` ones (or ones in
// `rest_extra`).
bool Matches(std::string_view text, bool (*first)(char), std::string_view rest_extra, bool (*rest)(char)) {
  if (text.empty() || !first(text[0])) return false;
  for (char c : text.substr(1)) {
    if (!rest(c) && rest_extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string Refused(std::string_view value, const std::string& kind, const std::string& syntax) {
  const std::string shown = "'" + Printable(value, 80) + "'";
  const std::string option = !value.empty() && value[0] == '-' ? " (it would be read as an option)" : "";
  return shown + " is not " + kind + option + ": " + syntax;
}

}  // namespace

std::string PackageNameRefusal(std::string_view name, PackageFamily family) {
  switch (family) {
    case PackageFamily::kDebian:
      if (name.size() >= 2 && Matches(name, IsLowerOrDigit, "+.-", IsLowerOrDigit)) return "";
      return Refused(name, "a Debian package name",
                     "lower-case letters, digits, '+', '.' and '-', at least two, the first a letter or digit");
    case PackageFamily::kRpm:
    case PackageFamily::kEither:
      if (Matches(name, [](char c) { return IsAlnum(c) || c == '_'; }, "_.+-", IsAlnum)) return "";
      return Refused(name, "a package name",
                     "letters, digits, '_', '.', '+' and '-', the first a letter, digit or '_'");
  }
  return "";
}

std::string PackageVersionRefusal(std::string_view version) {
  if (Matches(version, IsAlnum, ".+~:_^-", IsAlnum)) return "";
  return Refused(version, "a package version",
                 "letters, digits and '.+~:_^-', the first a letter or digit (an exact version, no pattern)");
}

std::string UnitNameRefusal(std::string_view name) {
  if (name.size() <= 255 && Matches(name, [](char c) { return IsAlnum(c) || c == '_' || c == ':' || c == '@' || c == '\\'; },
                                    ":_.@\\-", IsAlnum)) {
    return "";
  }
  return Refused(name, "a systemd unit name",
                 "letters, digits and ':_.@\\-', the first neither '-' nor '.', at most 255 characters");
}

std::string ModuleNameRefusal(std::string_view name) {
  if (Matches(name, [](char c) { return IsAlnum(c) || c == '_'; }, "_.-", IsAlnum)) return "";
  return Refused(name, "a kernel module name", "letters, digits, '_', '.' and '-', the first a letter, digit or '_'");
}

}  // namespace clusterctl::agent
