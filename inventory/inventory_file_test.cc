#include "inventory/inventory_file.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "controller/state/test_util.h"

namespace clusterctl {

TEST_CASE("a file the inventory names resolves inside the inventory's directory") {
  testing::TempDir dir;
  const std::string site = dir.path() + "/site";
  std::filesystem::create_directories(site + "/keys");
  std::ofstream(site + "/keys/grafana.asc") << "key\n";
  const std::string canonical = std::filesystem::canonical(site).string();
  CHECK(*ResolveInventoryFile(site, "keys/grafana.asc") == canonical + "/keys/grafana.asc");
  CHECK(*ResolveInventoryFile(site, "./keys/../keys/grafana.asc") == canonical + "/keys/grafana.asc");
  CHECK(*ResolveInventoryFile(site, canonical + "/keys/grafana.asc") == canonical + "/keys/grafana.asc");
  // Not there yet: resolved as far as it goes, for the reader to report.
  CHECK(*ResolveInventoryFile(site, "bundles/MLNX_OFED.tgz") == canonical + "/bundles/MLNX_OFED.tgz");
  // A link inside the directory to a file inside it is followed.
  REQUIRE(::symlink("keys/grafana.asc", (site + "/current.asc").c_str()) == 0);
  CHECK(*ResolveInventoryFile(site, "current.asc") == canonical + "/keys/grafana.asc");
}

TEST_CASE("a file the inventory names outside its directory is refused, saying where it leads and why (issue 31)") {
  testing::TempDir dir;
  const std::string site = dir.path() + "/site";
  std::filesystem::create_directories(site);
  std::ofstream(dir.path() + "/id_ed25519") << "private key\n";
  REQUIRE(::symlink((dir.path() + "/id_ed25519").c_str(), (site + "/key.asc").c_str()) == 0);
  const std::string canonical = std::filesystem::canonical(site).string();
  const std::string outside = std::filesystem::canonical(dir.path()).string() + "/id_ed25519";

  auto absolute = ResolveInventoryFile(site, "/root/.ssh/id_ed25519");
  CHECK(absolute.status().code() == Status::Code::kInvalidArgument);
  CHECK(absolute.status().message() ==
        "'/root/.ssh/id_ed25519' resolves to /root/.ssh/id_ed25519, outside the inventory's directory " + canonical +
            " (an absolute path outside it): only files inside it are sent to nodes");
  auto up = ResolveInventoryFile(site, "../id_ed25519");
  CHECK(up.status().message() == "'../id_ed25519' resolves to " + outside + ", outside the inventory's directory " +
                                     canonical + " ('..' leads out of it): only files inside it are sent to nodes");
  auto linked = ResolveInventoryFile(site, "key.asc");
  CHECK(linked.status().message() == "'key.asc' resolves to " + outside + ", outside the inventory's directory " +
                                         canonical + " (a symbolic link leads out of it): only files inside it are sent to nodes");
  CHECK_FALSE(ResolveInventoryFile(site, "keys/../../site2/x").ok());  // a sibling sharing the prefix
  CHECK_FALSE(ResolveInventoryFile(site, ".").ok());
  CHECK_FALSE(ResolveInventoryFile(site, "").ok());
}

}  // namespace clusterctl
