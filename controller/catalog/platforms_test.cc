// The OS releases as data (platforms.yaml): the file's own checks, which
// entry a node's os-release facts match, and the refusal of every release
// clusterctl does not plan, with the releases it does.
#include <doctest/doctest.h>

#include "controller/catalog/platforms.h"
#include "controller/catalog/role.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

nlohmann::json Os(const std::string& id, const std::string& version) {
  return {{"id", id}, {"family", "debian"}, {"version_id", version}, {"version_codename", ""}};
}

std::optional<Catalog> BuiltIn(Diagnostics& diagnostics) {
  Catalog::Sources sources{{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}};
  sources.platforms_file = testing::SourceDir() + "/platforms.yaml";
  return Catalog::Load(sources, diagnostics);
}

TEST_CASE("platforms.yaml: the built-in file loads, every release variable declared and of its type") {
  Diagnostics diagnostics;
  auto catalog = BuiltIn(diagnostics);
  REQUIRE_MESSAGE(catalog, diagnostics.ToString());
  const Platforms& platforms = catalog->platforms();
  REQUIRE(platforms.Find(Os("debian", "12")));
  CHECK(platforms.Find(Os("debian", "12"))->support == ReleaseSupport::kSupported);
  CHECK(platforms.Find(Os("debian", "13"))->vars.at("mpi_packages") ==
        nlohmann::json({"openmpi-bin", "libopenmpi40", "libpmix2t64"}));
  CHECK(platforms.Find(Os("rocky", "9.3"))->name == "rocky");  // an entry for every version of its ID
  // Release data beside the variables: the apt source format and the component series.
  CHECK(platforms.Find(Os("debian", "12"))->apt_sources == "one-line");
  CHECK(platforms.Find(Os("debian", "13"))->apt_sources == "deb822");
  CHECK(platforms.Find(Os("debian", "12"))->versions.at("slurm") == "22.05");
  CHECK(platforms.Find(Os("debian", "13"))->versions.at("slurm") == "24.11");
  CHECK(platforms.Find(Os("debian", "13"))->versions.at("openmpi") == "5.0");
}

TEST_CASE("platforms.yaml: apt_sources is one-line or deb822; versions are known components' series") {
  Diagnostics diagnostics;
  auto parsed = Platforms::Parse("releases:\n"
                                 "  a: {id: debian, version_id: '13', support: planned, why: x, apt_sources: rpm}\n"
                                 "  b: {id: debian, version_id: '12', support: planned, why: x, versions: {slurm: 24.11.x}}\n"
                                 "  c: {id: debian, version_id: '11', support: planned, why: x, versions: {lustre: '2.15'}}\n",
                                 "/t/platforms.yaml", diagnostics);
  CHECK_FALSE(parsed);
  const std::string errors = diagnostics.ToString();
  CAPTURE(errors);
  CHECK(errors.find("apt_sources") != std::string::npos);
  CHECK(errors.find("'24.11.x' is not a release series") != std::string::npos);
  CHECK(errors.find("lustre") != std::string::npos);
}

TEST_CASE("platforms.yaml: every release it does not plan is refused, naming the ones it plans") {
  Diagnostics diagnostics;
  auto catalog = BuiltIn(diagnostics);
  REQUIRE_MESSAGE(catalog, diagnostics.ToString());
  const Platforms& platforms = catalog->platforms();
  const std::string planned = "clusterctl plans debian 12 (bookworm, supported), debian 13 (trixie, supported), "
                              "ubuntu 22.04 (jammy, planned only), ubuntu 24.04 (noble, planned only) (docs/platforms.md)";
  const std::vector<std::pair<nlohmann::json, std::string>> refused = {
      {Os("debian", "11"), "debian 11 is refused: Debian 11 is past its regular security support"},
      {Os("ubuntu", "20.04"), "ubuntu 20.04 is refused: Ubuntu 20.04's standard support has ended"},
      {Os("rocky", "9.3"), "rocky 9.3 is refused: no EL (dnf) support yet"},
      {Os("rhel", "9.4"), "rhel 9.4 is refused: no EL (dnf) support yet"},
      {Os("almalinux", "9.4"), "almalinux 9.4 is refused: no EL (dnf) support yet"},
      {Os("centos", "7"), "centos 7 is refused: no EL (dnf) support yet"},
      {Os("arch", ""), "arch is not a release clusterctl knows (platforms.yaml)"},
      {Os("debian", "14"), "debian 14 is not a release clusterctl knows (platforms.yaml)"},
      {Os("ubuntu", "23.10"), "ubuntu 23.10 is not a release clusterctl knows (platforms.yaml)"},
      {nlohmann::json::object(), "an OS without an os-release ID is not a release clusterctl knows"},
  };
  for (const auto& [os, why] : refused) {
    const std::string refusal = platforms.Refusal(os);
    CAPTURE(refusal);
    CHECK(refusal.rfind(why, 0) == 0);
    CHECK(refusal.find(planned) != std::string::npos);
  }
  // Every refused entry of the file is in the list above: a release added as
  // refused gets its row there.
  for (const Release& release : platforms.releases()) {
    if (release.support != ReleaseSupport::kRefused) continue;
    const bool listed = std::any_of(refused.begin(), refused.end(), [&](const auto& row) {
      return row.first.value("id", "") == release.id &&
             (release.version_id.empty() || row.first.value("version_id", "") == release.version_id);
    });
    CHECK_MESSAGE(listed, release.name << " is refused but not tried here");
  }
  for (const char* version : {"12", "13"}) CHECK(platforms.Refusal(Os("debian", version)).empty());
  for (const char* version : {"22.04", "24.04"}) CHECK(platforms.Refusal(Os("ubuntu", version)).empty());
}

TEST_CASE("platforms.yaml: a file that is not one is refused with file:line") {
  Diagnostics diagnostics;
  auto parsed = Platforms::Parse(
      "version: 1\nreleases:\n"
      "  a:\n    id: debian\n    version_id: \"12\"\n    support: maybe\n    why: x\n"
      "  b:\n    id: Debian\n    support: refused\n    why: x\n"
      "  c:\n    id: debian\n    support: refused\n"
      "  d:\n    id: ubuntu\n    support: planned\n    why: x\n    vars: {a: 1}\n    colour: red\n",
      "/t/platforms.yaml", diagnostics);
  CHECK_FALSE(parsed);
  const std::string errors = diagnostics.ToString();
  CAPTURE(errors);
  CHECK(errors.find("/t/platforms.yaml:6") != std::string::npos);  // support: maybe
  CHECK(errors.find("'Debian' is not an os-release word") != std::string::npos);
  CHECK(errors.find("release 'c' needs id, support and why") != std::string::npos);
  CHECK(errors.find("colour") != std::string::npos);

  Diagnostics twice;
  CHECK_FALSE(Platforms::Parse("releases:\n  a: {id: debian, version_id: '12', support: supported, why: x}\n"
                               "  b: {id: debian, version_id: '12', support: refused, why: y}\n",
                               "/t/platforms.yaml", twice));
  CHECK(twice.ToString().find("release 'b': a second entry for debian 12") != std::string::npos);
}

TEST_CASE("platforms.yaml: a release variable no role declares, or of the wrong type, fails the catalog") {
  Diagnostics diagnostics;
  auto catalog = BuiltIn(diagnostics);
  REQUIRE(catalog);
  auto platforms = Platforms::Parse("releases:\n  x:\n    id: debian\n    version_id: '13'\n    support: planned\n"
                                    "    why: x\n    vars:\n      mpi_pakages: [a]\n      slurm_packages: 3\n",
                                    "/t/platforms.yaml", diagnostics);
  REQUIRE(platforms);
  platforms->CheckVariables(*catalog, diagnostics);
  const std::string errors = diagnostics.ToString();
  CAPTURE(errors);
  CHECK(errors.find("release 'x' sets variable 'mpi_pakages', which no role declares (did you mean 'mpi_packages'?)") !=
        std::string::npos);
  CHECK(errors.find("release 'x': slurm_packages") != std::string::npos);
}

TEST_CASE("platforms: an exact version's entry wins over its ID's; a catalog without the file refuses nothing") {
  Diagnostics diagnostics;
  auto platforms = Platforms::Parse("releases:\n  any: {id: debian, support: refused, why: old}\n"
                                    "  twelve: {id: debian, version_id: '12', support: supported, why: fine}\n",
                                    "/t/platforms.yaml", diagnostics);
  REQUIRE(platforms);
  CHECK(platforms->Find(Os("debian", "12"))->name == "twelve");
  CHECK(platforms->Find(Os("debian", "10"))->name == "any");
  CHECK(platforms->Find(Os("ubuntu", "22.04")) == nullptr);
  CHECK(Platforms().Refusal(Os("plan9", "4")).empty());
}

}  // namespace
}  // namespace clusterctl
