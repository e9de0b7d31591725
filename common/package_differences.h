// What the package kind's two sides share: the names a step's `name`
// parameter gives, and how the agent (agent/resources/package.cc) names a
// package it found missing in a difference line, which the controller reads
// when it installs a host's packages up front
// (controller/engine/kinds/package_kind.cc). One wording, one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_text.h"

namespace clusterctl {

// The package names of a `name` parameter: one word or a list (a list's
// non-strings as their JSON text, which the names check then refuses).
inline std::vector<std::string> PackageNames(const nlohmann::json& name) {
  std::vector<std::string> names;
  if (name.is_string()) {
    names.push_back(name.get<std::string>());
  } else if (name.is_array()) {
    for (const auto& n : name) names.push_back(n.is_string() ? n.get<std::string>() : JsonText(n));
  }
  return names;
}

inline constexpr std::string_view kPackageMissingSuffix = " not installed";

inline std::string PackageMissingDifference(const std::string& name) {
  return name + std::string(kPackageMissingSuffix);
}

// The package a difference line says is missing; nullopt for any other line.
inline std::optional<std::string> MissingPackageOf(std::string_view difference) {
  if (difference.size() <= kPackageMissingSuffix.size()) return std::nullopt;
  if (difference.substr(difference.size() - kPackageMissingSuffix.size()) != kPackageMissingSuffix) return std::nullopt;
  std::string_view name = difference.substr(0, difference.size() - kPackageMissingSuffix.size());
  if (name.find(' ') != std::string_view::npos) return std::nullopt;  // "x 1.0 installed (to be removed)" and the like
  return std::string(name);
}

}  // namespace clusterctl
