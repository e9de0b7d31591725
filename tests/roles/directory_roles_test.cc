// The directory roles, ldap-server, sssd and directory-homes (roles/,
// templates/), planned for fake facts: the entries and slapd's
// configuration as LDIF, sssd.conf with the bind password only in a secret
// file, nothing secret on a command line, and inventory values that would
// add an LDIF line or a DN component refused at planning.
#include <doctest/doctest.h>

#include <fstream>

#include "common/json_text.h"
#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string DirectoryInventory(const std::string& gecos = "Alice Liddell") {
  return R"(cluster: lab
connection: {user: root}
vars:
  ldap_tls_ca_file: ca.pem
  ldap_tls_cert_file: server.pem
  ldap_tls_key_file: server.key
  directory_homes_export: /export/home
  directory_users:
    - {name: alice, uid: 5001, gid: 5000, gecos: ")" + gecos + R"("}
    - {name: bob, uid: 5002, gid: 5000, shell: /bin/sh}
  directory_groups:
    - {name: hpc, gid: 5000, members: [alice, bob]}
    - {name: empty, gid: 5100}
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01]}
  directory: {hosts: [head]}
  nfs_server: {hosts: [head]}
)";
}

nlohmann::json Facts() {
  return {{"os", {{"id", "debian"}, {"family", "debian"}}}, {"pci", {{"gpu_count", 0}, {"hca_count", 0}}}, {"systemd", true}};
}

class DirectoryRoles : public testing::RoleHarness {
 public:
  explicit DirectoryRoles(const std::string& gecos = "Alice Liddell")
      : testing::RoleHarness(DirectoryInventory(gecos), {"hosts", "ldap-server", "sssd", "directory-homes"}) {
    for (const char* file : {"ca.pem", "server.pem", "server.key"}) std::ofstream(dir() + "/" + file) << "PEM " << file << "\n";
    secrets = &UseSecrets();
  }
  const SecretVault* secrets = nullptr;
  Planned PlanHost(const std::string& host) {
    return Plan(host, std::map<std::string, nlohmann::json>{{"head", Facts()}, {"gpu01", Facts()}});
  }
};

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("ldap-server: the inventory's users and groups as LDIF under dc=CLUSTER, sssd's account with a placeholder") {
  DirectoryRoles roles;
  Planned p = roles.PlanHost("head");
  const std::string& ldif = p.files.at("/etc/ldap/clusterctl/directory.ldif");
  CHECK(Contains(ldif, "\ndn: dc=lab\nobjectClass: dcObject\nobjectClass: organization\ndc: lab\no: lab\n"));
  CHECK(Contains(ldif, "\n\ndn: cn=sssd,ou=services,dc=lab\n"));
  CHECK(Contains(ldif, "userPassword: CLUSTERCTL-SSSD-HASH\n"));
  CHECK(Contains(ldif, "\n\ndn: cn=hpc,ou=groups,dc=lab\nobjectClass: posixGroup\ncn: hpc\ngidNumber: 5000\nmemberUid: alice\nmemberUid: bob\n"));
  CHECK(Contains(ldif, "\n\ndn: cn=empty,ou=groups,dc=lab\nobjectClass: posixGroup\ncn: empty\ngidNumber: 5100\n"));
  CHECK(Contains(ldif, "\n\ndn: uid=alice,ou=people,dc=lab\nobjectClass: account\nobjectClass: posixAccount\nuid: alice\ncn: alice\n"
                       "uidNumber: 5001\ngidNumber: 5000\nhomeDirectory: /home/alice\nloginShell: /bin/bash\ngecos: Alice Liddell\n"));
  CHECK(Contains(ldif, "homeDirectory: /home/bob\nloginShell: /bin/sh\n"));
  const std::string& config = p.files.at("/etc/ldap/clusterctl/slapd-config.ldif");
  CHECK(Contains(config, "olcSuffix: dc=lab\nolcRootDN: cn=admin,dc=lab\nolcRootPW: CLUSTERCTL-ADMIN-HASH\n"));
  // ldaps and ldapi only: no clear-text LDAP on the network.
  CHECK(p.params.at("ldap-server/listeners")["line"] == "SLAPD_SERVICES=\"ldaps:/// ldapi:///\"");
  CHECK(p.params.at("ldap-server/server key")["secret"] == true);
  CHECK(p.params.at("ldap-server/server key")["mode"] == "0400");  // issue 47, item 5: slapd's user alone
  CHECK(p.params.at("ldap-server/server key")["owner"] == "openldap");
  CHECK(p.notify.at("ldap-server/entries") == std::vector<std::string>{"load directory"});
}

TEST_CASE("ldap-server and sssd: the passwords only in secret files, never in a parameter or argv") {
  DirectoryRoles roles;
  Planned head = roles.PlanHost("head");
  Planned gpu = roles.PlanHost("gpu01");
  // (A secret in any parameter is a planning error: the planner's own check,
  // which PlanHost's REQUIRE would meet first.)
  CHECK(head.params.at("ldap-server/admin password")["secret"] == true);
  CHECK(head.params.at("ldap-server/sssd bind password")["secret"] == true);
  CHECK(gpu.params.at("sssd/sssd.conf")["secret"] == true);
  CHECK(gpu.params.at("sssd/sssd.conf")["mode"] == "0600");
}

TEST_CASE("sssd: the directory group's host over ldaps, the CA demanded, no enumeration, cached credentials") {
  DirectoryRoles roles;
  Planned p = roles.PlanHost("gpu01");
  const std::string& conf = p.files.at("/etc/sssd/sssd.conf");
  CHECK(Contains(conf, "ldap_uri = ldaps://head\n"));
  CHECK(Contains(conf, "ldap_search_base = dc=lab\n"));
  CHECK(Contains(conf, "ldap_default_bind_dn = cn=sssd,ou=services,dc=lab\n"));
  CHECK(Contains(conf, "ldap_tls_reqcert = demand\nldap_tls_cacert = /etc/sssd/clusterctl-ldap-ca.pem\n"));
  CHECK(Contains(conf, "enumerate = false\ncache_credentials = true\n"));
  CHECK_FALSE(Contains(conf, "start_tls"));
  CHECK(Contains(conf, "ldap_default_authtok = " + roles.secrets->values().at("ldap_sssd_password") + "\n"));
  CHECK(p.notify.at("sssd/sssd.conf") == std::vector<std::string>{"clear sssd cache", "restart sssd"});
  CHECK(p.params.at("sssd/nsswitch passwd")["line"] == "passwd:         files systemd sss");
  CHECK(std::find(p.steps.begin(), p.steps.end(), "sssd/pam mkhomedir") != p.steps.end());
  CHECK(std::find(p.roles.begin(), p.roles.end(), "ldap-server") == p.roles.end());
}

// Issue 47 (13): Debian's mkhomedir profile made homes with pam_mkhomedir's
// default umask (0022: 0755 homes every user reads), while directory-homes
// makes them 0700.
TEST_CASE("sssd: pam_mkhomedir through clusterctl's own profile, umask 0077, so a home it makes is 0700") {
  DirectoryRoles roles;
  Planned p = roles.PlanHost("gpu01");
  const std::string& profile = p.files.at("/usr/share/pam-configs/clusterctl-mkhomedir");
  CHECK(Contains(profile, "\nSession-Type: Additional\n"));
  CHECK(Contains(profile, "\nSession:\n\toptional\tpam_mkhomedir.so umask=0077\n"));
  const nlohmann::json& update = p.params.at("sssd/pam mkhomedir");
  CHECK(update["argv"] == nlohmann::json::array({"pam-auth-update", "--disable", "mkhomedir", "--enable", "clusterctl-mkhomedir"}));
  // Done when common-session has the 0077 line and no other pam_mkhomedir (Debian's, enabled before).
  CHECK(Contains(update["unless"][2].get<std::string>(), "grep -q 'pam_mkhomedir.so umask=0077$' /etc/pam.d/common-session"));
  CHECK(Contains(update["unless"][2].get<std::string>(), "$(grep -c pam_mkhomedir /etc/pam.d/common-session)\" = 1"));
  const auto at = [&](const std::string& step) { return std::find(p.steps.begin(), p.steps.end(), step); };
  CHECK(at("sssd/pam mkhomedir profile") < at("sssd/pam mkhomedir"));
  // The mode directory-homes gives the homes it makes.
  CHECK(roles.PlanHost("head").params.at("directory-homes/home[alice]")["argv"][4] == "--mode=0700");
}

TEST_CASE("directory-homes: a home per user on the NFS server's export, owned by the directory's numbers") {
  DirectoryRoles roles;
  Planned p = roles.PlanHost("head");
  CHECK(p.params.at("directory-homes/home[alice]")["argv"] ==
        nlohmann::json::array({"install", "-d", "--owner=5001", "--group=5000", "--mode=0700", "--", "/export/home/alice"}));
  CHECK(p.params.at("directory-homes/home[alice]")["creates"] == "/export/home/alice");
}

TEST_CASE("a gecos that would add an LDIF line or attribute is refused at planning") {
  for (const char* gecos : {"x\\nuserPassword: y", "x\\r\\ndn: cn=evil", "<file:///etc/shadow"}) {
    CAPTURE(gecos);
    DirectoryRoles roles(gecos);
    std::string errors = roles.PlanErrors("head", Facts());
    CHECK(Contains(errors, "directory.ldif"));
  }
}

}  // namespace clusterctl
