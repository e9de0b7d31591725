// Typed reads of one member of a JSON object that came from elsewhere (a
// node's facts, a stored summary): a member that is absent, or of another
// type, reads as nothing, never as an exception (nlohmann's value() and
// get<>() throw on a type they did not expect).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl {

// The member `key` of `object`; nullptr when `object` is not an object or has none.
inline const nlohmann::json* MemberOf(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The text at `key`; "" when absent or not text.
inline std::string TextAt(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = MemberOf(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// The integer at `key` within [0, max]; 0 when absent or not an integer.
inline int64_t CountAt(const nlohmann::json& object, const char* key, int64_t max = INT64_MAX) {
  const nlohmann::json* value = MemberOf(object, key);
  if (value == nullptr || !value->is_number_integer()) return 0;
  if (value->is_number_unsigned()) return static_cast<int64_t>(std::min<uint64_t>(value->get<uint64_t>(), max));
  return std::clamp<int64_t>(value->get<int64_t>(), 0, max);
}

// The boolean at `key`; false when absent or not a boolean.
inline bool FlagAt(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = MemberOf(object, key);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

// The finite number at `key`; `fallback` when absent or not a number.
inline double NumberAt(const nlohmann::json& object, const char* key, double fallback) {
  const nlohmann::json* value = MemberOf(object, key);
  if (value == nullptr || !value->is_number()) return fallback;
  double number = value->get<double>();
  return std::isfinite(number) ? number : fallback;
}

// The texts of the list at `key`; members of another type are left out.
inline std::vector<std::string> StringsAt(const nlohmann::json& object, const char* key) {
  std::vector<std::string> texts;
  const nlohmann::json* value = MemberOf(object, key);
  if (value == nullptr || !value->is_array()) return texts;
  for (const nlohmann::json& item : *value) {
    if (item.is_string()) texts.push_back(item.get<std::string>());
  }
  return texts;
}

}  // namespace clusterctl
