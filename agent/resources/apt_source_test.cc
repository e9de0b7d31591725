// The apt source text in both formats sources.list(5) defines: the same
// source (signed, trusted, flat, with components) either way.
#include <doctest/doctest.h>

#include "agent/resources/apt_source.h"

namespace clusterctl::agent {

TEST_CASE("apt source: one-line and deb822 say the same signed source with its components") {
  AptSource source{.uri = "http://deb.debian.org/debian",
                   .suite = "trixie",
                   .components = {"contrib", "non-free", "non-free-firmware"},
                   .keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"};
  CHECK(AptSourceText(source, AptSourceFormat::kOneLine) ==
        "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie contrib non-free "
        "non-free-firmware\n");
  CHECK(AptSourceText(source, AptSourceFormat::kDeb822) ==
        "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: contrib non-free non-free-firmware\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n");
}

TEST_CASE("apt source: a flat repository has no components; trusted only without a keyring") {
  AptSource flat{.uri = "file:/var/lib/clusterctl/repo", .suite = "./", .components = {"main"}, .trusted = true};
  CHECK(AptSourceText(flat, AptSourceFormat::kOneLine) == "deb [trusted=yes] file:/var/lib/clusterctl/repo ./\n");
  CHECK(AptSourceText(flat, AptSourceFormat::kDeb822) ==
        "Types: deb\nURIs: file:/var/lib/clusterctl/repo\nSuites: ./\nTrusted: yes\n");
  flat.keyring = "/etc/apt/keyrings/clusterctl-x.asc";
  CHECK(AptSourceText(flat, AptSourceFormat::kDeb822).find("Trusted") == std::string::npos);
  CHECK(AptSourceText(flat, AptSourceFormat::kOneLine) ==
        "deb [signed-by=/etc/apt/keyrings/clusterctl-x.asc] file:/var/lib/clusterctl/repo ./\n");
}

TEST_CASE("apt source: the file's name says its format; only the two words are formats") {
  CHECK(AptSourcePath("grafana", AptSourceFormat::kOneLine) == "/etc/apt/sources.list.d/clusterctl-grafana.list");
  CHECK(AptSourcePath("grafana", AptSourceFormat::kDeb822) == "/etc/apt/sources.list.d/clusterctl-grafana.sources");
  CHECK(ParseAptSourceFormat("deb822") == AptSourceFormat::kDeb822);
  CHECK(ParseAptSourceFormat("one-line") == AptSourceFormat::kOneLine);
  CHECK_FALSE(ParseAptSourceFormat("DEB822").has_value());
  CHECK_FALSE(ParseAptSourceFormat("").has_value());
}

}  // namespace clusterctl::agent
