// How the package kind names a package it found missing, in a difference
// line: written by the agent (agent/resources/package.cc), read by the
// controller when it installs a host's packages up front
// (controller/engine/kinds/package_kind.cc). One wording, one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clusterctl {

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
