// The directory view: where each host finds the directory, its base DN and
// sssd's bind DN, with defaults from the `directory` group and the cluster
// name, and the variables' syntaxes applied to the defaults too.
#include "controller/views/directory_view.h"

#include <doctest/doctest.h>

#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

std::string WithVars(const std::string& vars, const std::string& groups = "  directory: {hosts: [head]}\n") {
  return "version: 1\ncluster: lab-1\nvars:\n" + vars + "hosts:\n  head: {address: 10.0.0.1}\n  gpu01: {address: 10.0.0.2}\n"
         "groups:\n  controller: {hosts: [head]}\n  compute: {hosts: [gpu01]}\n" + groups;
}

Result<nlohmann::json> Build(const std::string& text) {
  return BuildDirectoryView(testing::InventoryFromText(text), {}, ViewInputs{});
}

}  // namespace

TEST_CASE("directory view: the directory group's host over ldaps, the base DN from the cluster name") {
  auto view = Build(WithVars("  x: 1\n"));
  REQUIRE(view.ok());
  CHECK((*view)["server"] == "head");
  const nlohmann::json& gpu = (*view)["per_host"]["gpu01"];
  CHECK(gpu["uri"] == "ldaps://head");
  CHECK(gpu["start_tls"] == false);
  CHECK(gpu["base_dn"] == "dc=lab-1");
  CHECK(gpu["dc"] == "lab-1");
  CHECK(gpu["bind_dn"] == "cn=sssd,ou=services,dc=lab-1");
  CHECK((*view)["per_host"]["head"] == gpu);
}

TEST_CASE("directory view: a directory elsewhere, its base DN") {
  auto view = Build(WithVars("  ldap_uri: ldap://ldap.example.org\n  ldap_base_dn: dc=example,dc=org\n", ""));
  REQUIRE(view.ok());
  CHECK((*view)["server"].is_null());
  const nlohmann::json& gpu = (*view)["per_host"]["gpu01"];
  CHECK(gpu["uri"] == "ldap://ldap.example.org");
  CHECK(gpu["start_tls"] == true);  // ldap:// only with StartTLS
  CHECK(gpu["dc"] == "example");
  CHECK(gpu["bind_dn"] == "cn=sssd,ou=services,dc=example,dc=org");
}

TEST_CASE("directory view: no directory, no uri (the sssd role does nothing)") {
  auto view = Build(WithVars("  x: 1\n", ""));
  REQUIRE(view.ok());
  CHECK((*view)["per_host"]["gpu01"]["uri"].is_null());
}

TEST_CASE("directory view: a base DN that would break out of LDIF or sssd.conf is refused, naming the host") {
  auto view = Build(WithVars("  ldap_base_dn: \"dc=x\\nuserPassword: y\"\n"));
  REQUIRE_FALSE(view.ok());
  CHECK(view.status().message().find("head's ldap_base_dn") == 0);
  auto uri = Build(WithVars("  ldap_uri: \"ldaps://a,ldap://evil\"\n"));
  REQUIRE_FALSE(uri.ok());
  CHECK(uri.status().message().find("is not an LDAP URI") != std::string::npos);
}

TEST_CASE("directory view: a user name or UID, a group name or GID listed twice is refused") {
  auto uid = Build(WithVars("  directory_users: [{name: a, uid: 5001, gid: 5000}, {name: b, uid: 5001, gid: 5000}]\n"));
  REQUIRE_FALSE(uid.ok());
  CHECK(uid.status().message() == "head's directory_users has two entries with uid 5001");
  auto name = Build(WithVars("  directory_groups: [{name: g, gid: 5000}, {name: g, gid: 5001}]\n"));
  REQUIRE_FALSE(name.ok());
  CHECK(name.status().message() == "head's directory_groups has two entries with name g");
  CHECK(Build(WithVars("  directory_users: [{name: a, uid: 5001, gid: 5000}, {name: b, uid: 5002, gid: 5000}]\n")).ok());
}

}  // namespace clusterctl
