#include "agent/resources/apt_source.h"

#include "common/strings.h"

namespace clusterctl::agent {

std::optional<AptSourceFormat> ParseAptSourceFormat(std::string_view word) {
  if (word == "one-line") return AptSourceFormat::kOneLine;
  if (word == "deb822") return AptSourceFormat::kDeb822;
  return std::nullopt;
}

std::string AptSourcePath(const std::string& name, AptSourceFormat format) {
  return "/etc/apt/sources.list.d/clusterctl-" + name + (format == AptSourceFormat::kDeb822 ? ".sources" : ".list");
}

std::string AptSourceText(const AptSource& source, AptSourceFormat format) {
  const bool flat = !source.suite.empty() && source.suite.back() == '/';
  if (format == AptSourceFormat::kOneLine) {
    const std::string options = !source.keyring.empty() ? "[signed-by=" + source.keyring + "] "
                                : source.trusted        ? "[trusted=yes] "
                                                        : "";
    return "deb " + options + source.uri + " " + source.suite +
           (flat || source.components.empty() ? "" : " " + Join(source.components, " ")) + "\n";
  }
  std::string text = "Types: deb\nURIs: " + source.uri + "\nSuites: " + source.suite + "\n";
  if (!flat && !source.components.empty()) text += "Components: " + Join(source.components, " ") + "\n";
  if (!source.keyring.empty()) {
    text += "Signed-By: " + source.keyring + "\n";
  } else if (source.trusted) {
    text += "Trusted: yes\n";
  }
  return text;
}

}  // namespace clusterctl::agent
