// An apt source as the repository resource writes it, in either of the two
// formats apt reads from /etc/apt/sources.list.d (sources.list(5)): the
// one-line `.list` form ("deb [signed-by=K] URI SUITE COMPONENTS") and the
// deb822 `.sources` stanza that apt 3 (Debian 13) prefers. Which one a node
// gets is release data (platforms.yaml `apt_sources`); the content is the
// same source either way. Pure: tested on text (apt_source_test.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterctl::agent {

enum class AptSourceFormat { kOneLine, kDeb822 };

// "one-line" / "deb822" (the repository resource's `format` parameter).
std::optional<AptSourceFormat> ParseAptSourceFormat(std::string_view word);

struct AptSource {
  std::string uri;
  std::string suite = "./";  // ending in '/': a flat repository, no components
  std::vector<std::string> components = {"main"};
  std::string keyring;   // signed-by; empty: none
  bool trusted = false;  // without a keyring only: trusted=yes
};

// /etc/apt/sources.list.d/clusterctl-NAME.list or .sources.
// REQUIRES: `name` is a plain file name (checked by the resource).
std::string AptSourcePath(const std::string& name, AptSourceFormat format);

// The file's text. REQUIRES: every field is one word (checked by the resource).
std::string AptSourceText(const AptSource& source, AptSourceFormat format);

}  // namespace clusterctl::agent
