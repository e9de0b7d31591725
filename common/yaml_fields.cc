#include "common/yaml_fields.h"

#include <cerrno>
#include <cstdlib>

#include "common/strings.h"

namespace clusterctl {

void YamlFields::CheckKnownKeys(const YamlNode& map, const std::vector<std::string>& allowed,
                                const std::string& context) {
  for (size_t i = 0; i < map.entries.size(); ++i) {
    const std::string& key = map.entries[i].first;
    bool known = false;
    for (const std::string& a : allowed) known = known || a == key;
    if (!known) {
      Error(map.key_locations[i], "unknown key '" + key + "' in " + context + DidYouMean(key, allowed) +
                                      "; allowed: " + Join(allowed, ", "));
    }
  }
}

bool YamlFields::ExpectMap(const YamlNode& node, const std::string& what, bool null_ok) {
  if (node.is_map() || (null_ok && node.is_null())) return true;
  Error(node.location, what + " must be a map, got " + node.KindName());
  return false;
}

bool YamlFields::ExpectSequence(const YamlNode& node, const std::string& what, bool null_ok) {
  if (node.is_sequence() || (null_ok && node.is_null())) return true;
  Error(node.location, what + " must be a list, got " + node.KindName());
  return false;
}

std::optional<std::string> YamlFields::String(const YamlNode& node, const std::string& what) {
  if (!node.is_scalar()) {
    Error(node.location, what + " must be a single value, got " + node.KindName());
    return std::nullopt;
  }
  return node.scalar;
}

std::optional<long long> YamlFields::Integer(const YamlNode& node, const std::string& what,
                                             long long min, long long max) {
  std::optional<std::string> text = String(node, what);
  if (!text) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text->c_str(), &end, 10);
  if (text->empty() || errno != 0 || end != text->c_str() + text->size()) {
    Error(node.location, what + " must be an integer, got '" + Printable(*text) + "'");
    return std::nullopt;
  }
  if (value < min || value > max) {
    Error(node.location, what + " must be between " + std::to_string(min) + " and " +
                             std::to_string(max) + ", got " + std::to_string(value));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> YamlFields::Bool(const YamlNode& node, const std::string& what) {
  std::optional<std::string> text = String(node, what);
  if (!text) return std::nullopt;
  if (std::optional<bool> b = ParseYamlBool(*text)) return b;
  Error(node.location, what + " must be true or false, got '" + Printable(*text) + "'");
  return std::nullopt;
}

std::optional<std::string> YamlFields::Choice(const YamlNode& node, const std::string& what,
                                              const std::vector<std::string>& choices) {
  std::optional<std::string> text = String(node, what);
  if (!text) return std::nullopt;
  for (const std::string& c : choices) {
    if (c == *text) return text;
  }
  Error(node.location, what + " must be one of " + Join(choices, ", ") + ", got '" + Printable(*text) +
                           "'" + DidYouMean(*text, choices));
  return std::nullopt;
}

std::optional<std::vector<std::string>> YamlFields::StringList(const YamlNode& node,
                                                               const std::string& what) {
  std::vector<std::string> out;
  if (node.is_null()) return out;
  if (node.is_scalar()) return std::vector<std::string>{node.scalar};
  if (!ExpectSequence(node, what)) return std::nullopt;
  bool ok = true;
  for (const YamlNode& item : node.items) {
    std::optional<std::string> s = String(item, "each entry of " + what);
    if (s) {
      out.push_back(*s);
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace clusterctl
