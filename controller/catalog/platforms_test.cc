// The OS releases and CPU architectures as data (platforms.yaml): the file's
// own checks, which entry a node's os-release and kernel facts match, and the
// refusal of every release and architecture clusterctl does not plan, with
// the ones it does.
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
  CHECK(errors.find("/t/platforms.yaml:8:7: error: release 'x' sets variable 'mpi_pakages'") != std::string::npos);  // its own line
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

nlohmann::json Kernel(const std::string& arch) { return {{"release", "6.1.0-57-arm64"}, {"arch", arch}}; }

TEST_CASE("platforms.yaml: the built-in architectures, aarch64's values and the refusal of an unknown one") {
  Diagnostics diagnostics;
  auto catalog = BuiltIn(diagnostics);
  REQUIRE_MESSAGE(catalog, diagnostics.ToString());
  const Platforms& platforms = catalog->platforms();
  REQUIRE(platforms.FindArchitecture(Kernel("x86_64")));
  CHECK(platforms.FindArchitecture(Kernel("x86_64"))->support == ReleaseSupport::kSupported);
  CHECK(platforms.FindArchitecture(Kernel("x86_64"))->vars.empty());  // the roles' defaults are x86_64's
  const Architecture* arm = platforms.FindArchitecture(Kernel("aarch64"));
  REQUIRE(arm);
  CHECK(arm->support == ReleaseSupport::kPlanned);
  CHECK(arm->vars.at("nvidia_driver_cuda_arch") == "sbsa");
  CHECK(arm->vars.at("mpi_multiarch") == "aarch64-linux-gnu");
  // Each aarch64 value differs from its role default (x86_64's), or it would not be there.
  for (const auto& [name, value] : arm->vars.items()) {
    CAPTURE(name);
    REQUIRE(catalog->FindVariable(name));
    CHECK(catalog->FindVariable(name)->default_value != value);
  }
  CHECK(platforms.FindArchitecture(Kernel("arm64")) == nullptr);  // Debian's name is not the kernel's
  CHECK(platforms.ArchitectureRefusal(Kernel("aarch64")).empty());
  CHECK(platforms.ArchitectureRefusal(Kernel("x86_64")).empty());
  CHECK(platforms.ArchitectureRefusal(nlohmann::json::object()).empty());  // facts naming none: not judged here
  CHECK(platforms.ArchitectureRefusal(Kernel("riscv64")) ==
        "riscv64 is not an architecture clusterctl knows (platforms.yaml); clusterctl plans x86_64 (supported), "
        "aarch64 (planned only) (docs/platforms.md)");
  CHECK(Platforms().ArchitectureRefusal(Kernel("riscv64")).empty());  // no architectures: test catalogs
}

TEST_CASE("platforms.yaml: an architecture that is not one uname -m prints, or badly written, is refused at its line") {
  Diagnostics diagnostics;
  auto parsed = Platforms::Parse("version: 2\n"
                                 "releases:\n  a: {id: debian, version_id: '12', support: supported, why: x}\n"
                                 "architectures:\n"
                                 "  arm64: {support: planned, why: x}\n"              // line 5: Debian's name
                                 "  sparc9: {support: planned, why: x}\n"             // line 6
                                 "  riscv64: {support: refused, why: x}\n"            // line 7: never refused
                                 "  ppc64le: {support: planned}\n"                    // line 8: no why
                                 "  s390x: {support: planned, why: x, colour: red}\n", // line 9
                                 "/t/platforms.yaml", diagnostics);
  CHECK_FALSE(parsed);
  const std::string errors = diagnostics.ToString();
  CAPTURE(errors);
  CHECK(errors.find("/t/platforms.yaml:5:3: error: architecture 'arm64': 'arm64' is Debian's name; write the kernel's, as "
                    "`uname -m` prints it: aarch64") != std::string::npos);
  CHECK(errors.find("/t/platforms.yaml:6:3: error: architecture 'sparc9': 'sparc9' is not an architecture `uname -m` prints "
                    "(x86_64, aarch64,") != std::string::npos);
  CHECK(errors.find("/t/platforms.yaml:7") != std::string::npos);
  CHECK(errors.find("architecture 'ppc64le' needs support and why") != std::string::npos);
  CHECK(errors.find("colour") != std::string::npos);

  // architectures: is format 2; a format 1 file keeps loading without it.
  Diagnostics old;
  CHECK_FALSE(Platforms::Parse("version: 1\nreleases:\n  a: {id: debian, support: supported, why: x}\n"
                               "architectures:\n  aarch64: {support: planned, why: x}\n",
                               "/t/platforms.yaml", old));
  CAPTURE(old.ToString());
  CHECK(old.ToString().find("/t/platforms.yaml:4") != std::string::npos);
  CHECK(old.ToString().find("architectures: needs platforms.yaml format 2 (version: 2), this file says version 1") !=
        std::string::npos);
  Diagnostics one;
  CHECK(Platforms::Parse("version: 1\nreleases:\n  a: {id: debian, support: supported, why: x}\n", "/t/p.yaml", one));
  Diagnostics three;
  CHECK_FALSE(Platforms::Parse("version: 3\nreleases:\n  a: {id: debian, support: supported, why: x}\n", "/t/p.yaml", three));
}

TEST_CASE("platforms.yaml: a variable set by both a release and an architecture is refused at the architecture's line") {
  Diagnostics diagnostics;
  auto parsed = Platforms::Parse("version: 2\n"
                                 "releases:\n"
                                 "  debian-13:\n    id: debian\n    version_id: '13'\n    support: planned\n    why: x\n"
                                 "    vars:\n      mpi_packages: [openmpi-bin]\n"  // line 9
                                 "architectures:\n"
                                 "  aarch64:\n    support: planned\n    why: x\n    vars:\n"
                                 "      nvidia_driver_cuda_arch: sbsa\n"
                                 "      mpi_packages: [openmpi-bin, libopenmpi3]\n",  // line 16
                                 "/t/platforms.yaml", diagnostics);
  CHECK_FALSE(parsed);
  const std::string errors = diagnostics.ToString();
  CAPTURE(errors);
  CHECK(errors.find("/t/platforms.yaml:16:7: error: architecture 'aarch64' sets variable 'mpi_packages', which release "
                    "'debian-13' sets too (line 9): a variable is per release or per architecture, never both") !=
        std::string::npos);
  CHECK(errors.find("nvidia_driver_cuda_arch") == std::string::npos);
}

TEST_CASE("platforms.yaml: an architecture variable no role declares, or of the wrong value, fails the catalog at its line") {
  Diagnostics diagnostics;
  auto catalog = BuiltIn(diagnostics);
  REQUIRE(catalog);
  auto platforms = Platforms::Parse("version: 2\nreleases:\n  a: {id: debian, version_id: '12', support: supported, why: x}\n"
                                    "architectures:\n  aarch64:\n    support: planned\n    why: x\n    vars:\n"
                                    "      nvidia_driver_cuda_arc: sbsa\n"          // line 9: not declared
                                    "      mpi_multiarch: 'aarch64 linux'\n",     // line 10: not a word
                                    "/t/platforms.yaml", diagnostics);
  REQUIRE(platforms);
  platforms->CheckVariables(*catalog, diagnostics);
  const std::string errors = diagnostics.ToString();
  CAPTURE(errors);
  CHECK(errors.find("/t/platforms.yaml:9:7: error: architecture 'aarch64' sets variable 'nvidia_driver_cuda_arc', which no "
                    "role declares (did you mean 'nvidia_driver_cuda_arch'?)") != std::string::npos);
  CHECK(errors.find("/t/platforms.yaml:10:7: error: architecture 'aarch64': mpi_multiarch (aarch64 linux) is not one word") != std::string::npos);
}

}  // namespace
}  // namespace clusterctl
