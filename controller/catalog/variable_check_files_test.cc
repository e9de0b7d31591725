// Files a `*_file` variable may not send to nodes even inside the inventory's
// directory (issue 47, item 5): the connection key, the state directory, a
// private key where none is declared. Checked with the built-in roles, as
// `inventory check` and every run check them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "controller/catalog/variable_check.h"
#include "controller/state/test_util.h"
#include "inventory/loader.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

constexpr char kOpenSshKey[] = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";

// The errors of checking an inventory in `dir` whose vars end with `vars`
// (line 6 onwards), its connection key being `id_test` there.
std::string FileErrors(const std::string& dir, const std::string& vars) {
  std::ofstream(dir + "/inventory.yaml") << "cluster: lab\n"                      // 1
                                            "connection: {key_file: id_test}\n"   // 2
                                            "vars:\n"                             // 3
                                            "  grafana_repository: https://apt.grafana.com\n"  // 4
                                            "  ldap_tls_ca_file: ca.pem\n"        // 5
                                         << vars
                                         << "hosts:\n  head: {address: 10.0.0.1}\ngroups:\n  monitoring: {hosts: [head]}\n";
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(dir + "/inventory.yaml", diagnostics);
  REQUIRE_MESSAGE(inventory, diagnostics.ToString());
  std::optional<Catalog> catalog =
      Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, diagnostics);
  REQUIRE(catalog);
  CheckInventoryVariables(*catalog, *inventory, diagnostics);
  return diagnostics.ToString();
}

struct Site {
  testing::TempDir dir;
  Site() {
    std::ofstream(dir.path() + "/id_test") << kOpenSshKey;
    std::ofstream(dir.path() + "/other_key") << kOpenSshKey;
    std::ofstream(dir.path() + "/grafana.asc") << "-----BEGIN PGP PUBLIC KEY BLOCK-----\n";
    std::ofstream(dir.path() + "/ca.pem") << "-----BEGIN CERTIFICATE-----\n";
    std::ofstream(dir.path() + "/server.key") << "-----BEGIN PRIVATE KEY-----\n";
    std::filesystem::create_directories(dir.path() + "/.clusterctl/secrets");
    std::ofstream(dir.path() + "/.clusterctl/secrets/munge_key") << "k";
  }
};

TEST_CASE("a *_file variable naming the connection key is refused at its file:line (issue 47, item 5)") {
  Site site;
  const std::string errors = FileErrors(site.dir.path(), "  grafana_repository_key_file: id_test\n");
  CHECK(errors.find("inventory.yaml:6:") != std::string::npos);
  CHECK(errors.find("grafana_repository_key_file names 'id_test', which is not sent to nodes: it is the cluster's SSH "
                    "connection key") != std::string::npos);
}

TEST_CASE("a *_file variable naming a file in the state directory is refused") {
  Site site;
  const std::string errors = FileErrors(site.dir.path(), "  grafana_repository_key_file: .clusterctl/secrets/munge_key\n");
  CHECK(errors.find("inventory.yaml:6:") != std::string::npos);
  CHECK(errors.find("state directory") != std::string::npos);
}

TEST_CASE("a private key is refused where the variable does not take one, and accepted where it is declared to") {
  Site site;
  const std::string errors = FileErrors(site.dir.path(), "  grafana_repository_key_file: other_key\n");
  CHECK(errors.find("inventory.yaml:6:") != std::string::npos);
  CHECK(errors.find("it holds a private key") != std::string::npos);
  // ldap_tls_key_file is declared private_key: a key there is fine, the connection key is not.
  const std::string tls = FileErrors(site.dir.path(), "  ldap_tls_cert_file: ca.pem\n  ldap_tls_key_file: server.key\n");
  CHECK(tls.find("server.key") == std::string::npos);
  const std::string connection = FileErrors(site.dir.path(), "  ldap_tls_cert_file: ca.pem\n  ldap_tls_key_file: id_test\n");
  CHECK(connection.find("inventory.yaml:7:") != std::string::npos);
  CHECK(connection.find("connection key") != std::string::npos);
  // A public key beside the inventory is no error.
  CHECK(FileErrors(site.dir.path(), "  grafana_repository_key_file: grafana.asc\n").find("grafana") == std::string::npos);
}

}  // namespace
}  // namespace clusterctl
