// Mixed releases (release_mix.h) on the built-in platforms.yaml's releases:
// which mixes are refused, naming hosts and versions, and which work.
#include <doctest/doctest.h>

#include "controller/catalog/release_mix.h"
#include "controller/catalog/role.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

const std::vector<std::string> kController = {"munge", "slurm-common", "slurm-controller", "slurm-accounting", "mpi"};
const std::vector<std::string> kCompute = {"munge", "slurm-common", "slurm-node", "mpi"};

struct Fixture {
  Fixture() {
    Catalog::Sources sources{{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}};
    sources.platforms_file = testing::SourceDir() + "/platforms.yaml";
    catalog = Catalog::Load(sources, diagnostics);
    REQUIRE_MESSAGE(catalog, diagnostics.ToString());
  }
  const Release* Of(const std::string& id, const std::string& version) const {
    const Release* release = catalog->platforms().Find({{"id", id}, {"version_id", version}});
    REQUIRE(release);
    return release;
  }
  Diagnostics diagnostics;
  std::optional<Catalog> catalog;
};

}  // namespace

TEST_CASE("Slurm's compatibility window: two older major releases before 24.11, three from it on") {
  CHECK(SlurmCompatibilityWindow("22.05") == 2);
  CHECK(SlurmCompatibilityWindow("24.05") == 2);
  CHECK(SlurmCompatibilityWindow("24.11") == 3);
  CHECK(SlurmCompatibilityWindow("25.11") == 3);
  CHECK(SlurmCompatibilityWindow("24.12") == -1);
  CHECK(SlurmReleasesBehind("24.11", "22.05") == 4);
  CHECK(SlurmReleasesBehind("22.05", "24.11") == -4);
  CHECK(SlurmReleasesBehind("24.11", "23.11") == 2);
  CHECK_FALSE(SlurmReleasesBehind("24.11", "9.9").has_value());
}

TEST_CASE("mixed releases: one release, or no release data, refuses nothing") {
  Fixture f;
  const Release* bookworm = f.Of("debian", "12");
  CHECK(MixedReleaseRefusals({MixHostOf("node01", bookworm, kController), MixHostOf("node02", bookworm, kCompute),
                              MixHostOf("node03", bookworm, kCompute)})
            .empty());
  CHECK(MixedReleaseRefusals({MixHostOf("node01", bookworm, kController), MixHostOf("node02", nullptr, kCompute)})
            .empty());
}

TEST_CASE("mixed releases: Debian 13 compute nodes under a Debian 12 controller are refused, naming hosts and versions") {
  Fixture f;
  auto refused = MixedReleaseRefusals({MixHostOf("node01", f.Of("debian", "12"), kController),
                                       MixHostOf("node02", f.Of("debian", "12"), kCompute),
                                       MixHostOf("node03", f.Of("debian", "13"), kCompute)});
  REQUIRE(refused.size() == 1);
  const std::string& why = refused.at("node03");
  CAPTURE(why);
  CHECK(why.find("node03 (debian 13 (trixie), Slurm 24.11) and slurmctld on node01 (debian 12 (bookworm), Slurm 22.05): "
                 "slurmctld refuses a newer slurmd or command") != std::string::npos);
  CHECK(why.find("node03 (debian 13 (trixie), Open MPI 5.0) and node01 (debian 12 (bookworm), Open MPI 4.1): the ranks "
                 "of one MPI job must run one Open MPI series") != std::string::npos);
  CHECK(why.find("docs/platforms.md#mixed-releases") != std::string::npos);
}

TEST_CASE("mixed releases: a Debian 13 controller with Debian 12 compute nodes is refused (22.05 is 4 releases behind 24.11)") {
  Fixture f;
  auto refused = MixedReleaseRefusals({MixHostOf("head", f.Of("debian", "13"), kController),
                                       MixHostOf("gpu01", f.Of("debian", "12"), kCompute)});
  REQUIRE(refused.count("gpu01") == 1);
  CHECK(refused.count("head") == 0);
  CHECK(refused.at("gpu01").find("slurmctld 24.11 accepts its 3 previous major releases only") != std::string::npos);
}

TEST_CASE("mixed releases: Ubuntu 24.04 compute nodes (Slurm 23.11) under a Debian 12 controller (22.05) are refused") {
  Fixture f;
  auto refused = MixedReleaseRefusals({MixHostOf("head", f.Of("debian", "12"), kController),
                                       MixHostOf("gpu01", f.Of("ubuntu", "24.04"), kCompute)});
  REQUIRE(refused.count("gpu01") == 1);
  CHECK(refused.at("gpu01").find("slurmctld refuses a newer slurmd") != std::string::npos);
  CHECK(refused.at("gpu01").find("Open MPI") == std::string::npos);  // 4.1 on both
}

TEST_CASE("mixed releases: where it works, it is allowed (older slurmd inside the window, one Open MPI series)") {
  Fixture f;
  // Debian 12's 22.05 controller, Ubuntu 22.04's 21.08 slurmd: one release behind, Open MPI 4.1 on both.
  CHECK(MixedReleaseRefusals({MixHostOf("head", f.Of("debian", "12"), kController),
                              MixHostOf("gpu01", f.Of("ubuntu", "22.04"), kCompute)})
            .empty());
  // Debian 13's 24.11 controller, an Ubuntu 24.04 login node (Slurm 23.11 commands, no MPI): two behind, inside 3.
  CHECK(MixedReleaseRefusals({MixHostOf("head", f.Of("debian", "13"), kController),
                              MixHostOf("login", f.Of("ubuntu", "24.04"), {"munge", "slurm-common"})})
            .empty());
}

TEST_CASE("mixed releases: a slurmdbd older than slurmctld, and a backup slurmctld of another release, are refused") {
  Fixture f;
  auto dbd = MixedReleaseRefusals({MixHostOf("head", f.Of("debian", "12"), {"slurm-common", "slurm-controller"}),
                                   MixHostOf("db", f.Of("ubuntu", "22.04"), {"slurm-common", "slurm-accounting"})});
  REQUIRE(dbd.count("db") == 1);
  CHECK(dbd.at("db").find("slurmdbd must be no older than slurmctld") != std::string::npos);
  // A newer slurmdbd inside its window is how Slurm upgrades start: allowed.
  CHECK(MixedReleaseRefusals({MixHostOf("head", f.Of("ubuntu", "22.04"), {"slurm-common", "slurm-controller"}),
                              MixHostOf("db", f.Of("debian", "12"), {"slurm-common", "slurm-accounting"})})
            .empty());
  auto backup = MixedReleaseRefusals({MixHostOf("head", f.Of("debian", "12"), kController),
                                      MixHostOf("head2", f.Of("ubuntu", "22.04"), {"slurm-common", "slurm-controller"})});
  REQUIRE(backup.count("head2") == 1);
  CHECK(backup.at("head2").find("a backup slurmctld must run the primary's Slurm release") != std::string::npos);
}

}  // namespace clusterctl
