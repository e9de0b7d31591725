#include "inventory/sensitive_file.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "controller/state/test_util.h"
#include "inventory/inventory_file.h"

namespace clusterctl {
namespace {

TEST_CASE("private keys are recognised by their header, public material is not") {
  CHECK(LooksLikePrivateKey("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...\n"));
  CHECK(LooksLikePrivateKey("junk\n-----BEGIN RSA PRIVATE KEY-----\n"));
  CHECK(LooksLikePrivateKey("-----BEGIN EC PRIVATE KEY-----\n"));
  CHECK(LooksLikePrivateKey("-----BEGIN PRIVATE KEY-----\n"));
  CHECK(LooksLikePrivateKey("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
  CHECK(LooksLikePrivateKey("-----BEGIN PGP PRIVATE KEY BLOCK-----\n"));
  CHECK_FALSE(LooksLikePrivateKey("-----BEGIN PGP PUBLIC KEY BLOCK-----\n"));
  CHECK_FALSE(LooksLikePrivateKey("-----BEGIN CERTIFICATE-----\n"));
  CHECK_FALSE(LooksLikePrivateKey("ssh-ed25519 AAAAC3Nza admin@host\n"));
}

TEST_CASE("the connection key, the state directory and private keys are refused as files to send (issue 47, item 5)") {
  testing::TempDir dir;
  const std::string site = std::filesystem::canonical(dir.path()).string();
  std::filesystem::create_directories(site + "/.clusterctl/secrets");
  std::filesystem::create_directories(site + "/state-elsewhere/secrets");
  std::ofstream(site + "/id_test") << "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
  std::ofstream(site + "/renamed-key") << "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n";
  std::ofstream(site + "/repo.asc") << "-----BEGIN PGP PUBLIC KEY BLOCK-----\n";
  std::ofstream(site + "/tls.key") << "-----BEGIN PRIVATE KEY-----\n";
  std::ofstream(site + "/.clusterctl/secrets/munge_key") << "x";
  std::ofstream(site + "/state-elsewhere/state.db") << "";
  std::ofstream(site + "/state-elsewhere/secrets/munge_key") << "x";
  const std::set<std::string> keys = {site + "/id_test"};
  auto refusal = [&](const std::string& name, bool takes_private_key = false) {
    auto resolved = ResolveInventoryFile(site, name);
    REQUIRE(resolved.ok());
    return SensitiveFileRefusal(*resolved, site, keys, takes_private_key);
  };
  CHECK(refusal("id_test").find("SSH connection key") != std::string::npos);
  CHECK(refusal("id_test", true).find("SSH connection key") != std::string::npos);  // never, declared or not
  CHECK(refusal(".clusterctl/secrets/munge_key").find("state directory") != std::string::npos);
  CHECK(refusal("state-elsewhere/secrets/munge_key").find("state directory") != std::string::npos);
  CHECK(refusal("renamed-key").find("private key") != std::string::npos);
  CHECK(refusal("tls.key").find("private key") != std::string::npos);
  CHECK(refusal("tls.key", true).empty());
  CHECK(refusal("repo.asc").empty());
}

}  // namespace
}  // namespace clusterctl
