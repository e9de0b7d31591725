#include "controller/state/secret_vault.h"

#include <doctest/doctest.h>
#include <unistd.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace clusterctl {
namespace {

std::string TempDir() {
  char pattern[] = "/tmp/clusterctl-vault-XXXXXX";
  return ::mkdtemp(pattern);
}

TEST_CASE("secrets: generated once, kept 0600, the same on the next run") {
  const std::string dir = TempDir() + "/secrets";
  std::map<std::string, SecretSpec> specs = {{"munge_key", {SecretSpec::Kind::kBytes, 1024}},
                                             {"db_password", {SecretSpec::Kind::kPassword, 32}}};
  SecretVault first(dir, true);
  REQUIRE(first.Prepare(specs).ok());
  CHECK(first.generated().size() == 2);
  CHECK(first.values().at("munge_key").size() == 1024);
  const std::string password = first.values().at("db_password");
  CHECK(password.size() == 32);
  CHECK(password.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == std::string::npos);
  struct stat st;
  REQUIRE(::stat((dir + "/munge_key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  SecretVault second(dir, true);
  REQUIRE(second.Prepare(specs).ok());
  CHECK(second.generated().empty());
  CHECK(second.values() == first.values());
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST_CASE("secrets: a plan generates in memory only") {
  const std::string dir = TempDir() + "/secrets";
  SecretVault plan(dir, false);
  REQUIRE(plan.Prepare({{"munge_key", {SecretSpec::Kind::kBytes, 64}}}).ok());
  CHECK(plan.generated().size() == 1);
  CHECK_FALSE(std::filesystem::exists(dir + "/munge_key"));
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST_CASE("secrets: an exposed or damaged stored secret is refused, not replaced") {
  const std::string dir = TempDir();
  {
    std::ofstream(dir + "/munge_key") << "short";
  }
  ::chmod((dir + "/munge_key").c_str(), 0644);
  SecretVault exposed(dir, true);
  Status s = exposed.Prepare({{"munge_key", {SecretSpec::Kind::kBytes, 1024}}});
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("readable by group or others (mode 0644)") != std::string::npos);
  ::chmod((dir + "/munge_key").c_str(), 0600);
  SecretVault damaged(dir, true);
  s = damaged.Prepare({{"munge_key", {SecretSpec::Kind::kBytes, 1024}}});
  CHECK(s.message().find("has 5 bytes, expected 1024") != std::string::npos);
  std::ifstream in(dir + "/munge_key");
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(kept == "short");
  std::filesystem::remove_all(dir);
}

TEST_CASE("secrets: a stored secret that belongs to someone else is refused (it could have been planted)") {
  if (::geteuid() != 0) return;  // only root can give a file away; CI runs as root
  const std::string dir = TempDir();
  const std::string path = dir + "/munge_key";
  std::ofstream(path) << std::string(1024, 'x');
  ::chmod(path.c_str(), 0600);
  REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);  // nobody
  SecretVault vault(dir, true);
  Status s = vault.Prepare({{"munge_key", {SecretSpec::Kind::kBytes, 1024}}});
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("belongs to uid 65534, not to the user running clusterctl (uid 0)") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("secrets: Mask replaces every secret value a node's output carries") {
  const std::string dir = TempDir();
  SecretVault vault(dir, true);
  REQUIRE(vault.Prepare({{"db_password", {SecretSpec::Kind::kPassword, 32}}}).ok());
  const std::string password = vault.values().at("db_password");
  CHECK(vault.Mask("ERROR 1064: near 'IDENTIFIED BY '" + password + "'' and again " + password) ==
        "ERROR 1064: near 'IDENTIFIED BY '[secret db_password]'' and again [secret db_password]");
  CHECK(vault.Mask("nothing secret") == "nothing secret");
  std::filesystem::remove_all(dir);
}

TEST_CASE("secrets: passwords use every letter and digit, bytes are not constant") {
  std::string all;
  for (int i = 0; i < 50; ++i) all += GenerateSecret({SecretSpec::Kind::kPassword, 64});
  for (char c : std::string("AZaz09")) CHECK(all.find(c) != std::string::npos);
  CHECK(GenerateSecret({SecretSpec::Kind::kBytes, 32}) != GenerateSecret({SecretSpec::Kind::kBytes, 32}));
}

}  // namespace
}  // namespace clusterctl
