// The container roles (issue 37), planned for fake facts: containers
// (Slurm's oci.conf running a rootless crun or runc through clusterctl's
// wrapper, clusterctl-image-bundle with the cluster's registry, the
// registry's CA trusted) on every Slurm host when containers_runtime is set;
// registry (Debian's docker-registry over TLS) on the controller, local or a
// pull-through cache whose password travels only as a secret file; pulls
// open on the management address, pushes and deletes only on the push
// listener with the generated credential (issue 47).
#include <doctest/doctest.h>

#include <fstream>

#include "common/json_text.h"
#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string Inventory(const std::string& vars) {
  return R"(cluster: lab
connection: {user: root}
vars:
  registry_tls_ca_file: ca.pem
  registry_tls_cert_file: server.pem
  registry_tls_key_file: server.key
)" + vars + R"(hosts:
  head01: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
groups:
  controller: {hosts: [head01]}
  compute: {hosts: [gpu01]}
)";
}

nlohmann::json Facts() {
  return {{"os", {{"id", "debian"}, {"family", "debian"}}}, {"systemd", true}, {"pci", {{"gpu_count", 0}, {"hca_count", 0}}}};
}

class ContainerRoles : public testing::RoleHarness {
 public:
  explicit ContainerRoles(const std::string& vars) : testing::RoleHarness(Inventory(vars), {"containers", "registry"}) {
    for (const char* file : {"ca.pem", "server.pem", "server.key", "proxy.pw"}) std::ofstream(dir() + "/" + file) << "PEM " << file << "\n";
    secrets = &UseSecrets();
  }
  const SecretVault* secrets = nullptr;
  Planned PlanHost(const std::string& host) {
    return Plan(host, std::map<std::string, nlohmann::json>{{"head01", Facts()}, {"gpu01", Facts()}});
  }
};

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}
bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("containers: off unless containers_runtime is set; registry: off unless registry_mode is") {
  ContainerRoles off("");
  CHECK_FALSE(Has(off.PlanHost("gpu01").roles, "containers"));
  CHECK_FALSE(Has(off.PlanHost("head01").roles, "registry"));
}

TEST_CASE("containers: oci.conf runs the rootless runtime through the wrapper; the bundler pulls from the controller's registry") {
  ContainerRoles roles("  containers_runtime: crun\n  registry_mode: local\n");
  Planned gpu = roles.PlanHost("gpu01");
  Planned head = roles.PlanHost("head01");
  CHECK(Has(gpu.roles, "containers"));
  CHECK(Has(head.roles, "containers"));
  CHECK_FALSE(Has(gpu.roles, "registry"));
  CHECK(gpu.params.at("containers/packages")["name"] == nlohmann::json::array({"crun", "skopeo", "umoci"}));
  const std::string& oci = gpu.files.at("/etc/slurm/oci.conf");
  CHECK(Contains(oci, "\nRunTimeRun=\"/usr/local/lib/clusterctl/oci-runtime run --bundle %b %n.%u.%j.%s.%t\"\n"));
  CHECK(Contains(oci, "\nRunTimeQuery=\"/usr/local/lib/clusterctl/oci-runtime state %n.%u.%j.%s.%t\"\n"));
  CHECK(Contains(oci, "\nRunTimeKill=\"/usr/local/lib/clusterctl/oci-runtime kill -a %n.%u.%j.%s.%t\"\n"));
  CHECK(Contains(oci, "\nRunTimeDelete=\"/usr/local/lib/clusterctl/oci-runtime delete --force %n.%u.%j.%s.%t\"\n"));
  const std::string& wrapper = gpu.files.at("/usr/local/lib/clusterctl/oci-runtime");
  CHECK(Contains(wrapper, "\nroot=/run/clusterctl-oci/$(id -u)\n"));
  CHECK(Contains(wrapper, "\nexec crun --rootless=true --root=\"$root\" \"$@\"\n"));
  // The user no longer makes the directory (it could make another's): root
  // does, at the job's start; the wrapper still refuses one not the user's.
  CHECK_FALSE(Contains(wrapper, "mkdir"));
  CHECK(Contains(wrapper, "is missing: the Slurm prolog makes it at a job's start"));
  CHECK(Contains(wrapper, "is not a 0700 directory of user $(id -u)'s own; refusing it"));
  CHECK(Contains(gpu.files.at("/usr/local/bin/clusterctl-image-bundle"), "\nregistry=head01:5000\n"));
  // The registry's CA joins the trust store, which is then updated.
  CHECK(gpu.params.at("containers/registry CA")["path"] == "/usr/local/share/ca-certificates/clusterctl-registry.crt");
  CHECK(gpu.notify.at("containers/registry CA") == std::vector<std::string>{"update trust store"});
}

TEST_CASE("containers: runc, and a registry of the site's own") {
  ContainerRoles roles("  containers_runtime: runc\n  containers_registry: registry.example.org:443\n");
  Planned gpu = roles.PlanHost("gpu01");
  CHECK(Contains(gpu.files.at("/usr/local/lib/clusterctl/oci-runtime"), "\nexec runc --rootless=true --root=\"$root\" \"$@\"\n"));
  CHECK(Contains(gpu.files.at("/usr/local/bin/clusterctl-image-bundle"), "\nregistry=registry.example.org:443\n"));
  CHECK_FALSE(Has(roles.PlanHost("head01").roles, "registry"));
}

// Issue 47 (10): /run/clusterctl-oci was world-writable (1777), so another
// user could make /run/clusterctl-oci/UID first (the wrapper then refused
// it: no containers for that user until a reboot).
TEST_CASE("containers: only root writes /run/clusterctl-oci; the prolog makes each job user's directory") {
  ContainerRoles roles("  containers_runtime: crun\n");
  Planned gpu = roles.PlanHost("gpu01");
  CHECK(Contains(gpu.files.at("/etc/tmpfiles.d/clusterctl-oci.conf"), "\nd /run/clusterctl-oci 0755 root root -\n"));
  CHECK_FALSE(Contains(gpu.files.at("/etc/tmpfiles.d/clusterctl-oci.conf"), "1777"));
  // An existing 1777 directory is corrected: the step runs unless it is root's 0755.
  CHECK(Contains(JsonText(gpu.params.at("containers/runtime state directory")["unless"]), "'755 root root'"));
  const std::string& list = gpu.files.at("/etc/clusterctl/user-dirs.d/containers.conf");
  CHECK(Contains(list, "\n/run/clusterctl-oci/%u\n"));
  CHECK(gpu.params.at("containers/user directories list")["path"] == "/etc/clusterctl/user-dirs.d");
}

TEST_CASE("registry local: TLS with the site's files, clusterctl's configuration through a drop-in, no proxy") {
  ContainerRoles roles("  registry_mode: local\n  registry_port: 5443\n");
  Planned head = roles.PlanHost("head01");
  REQUIRE(Has(head.roles, "registry"));
  const std::string& config = head.files.at("/etc/docker/registry/clusterctl.yml");
  CHECK(Contains(config, "\nhttp:\n  addr: '10.0.0.1:5443'\n  tls:\n    certificate: /etc/docker/registry/clusterctl/server.pem\n"
                         "    key: /etc/docker/registry/clusterctl/server.key\n"));
  CHECK_FALSE(Contains(config, "proxy:"));
  CHECK(head.params.at("registry/key")["secret"] == true);
  // A private key lands readable by the registry's user alone (issue 47, item 5).
  CHECK(head.params.at("registry/key")["mode"] == "0400");
  CHECK(head.params.at("registry/key")["owner"] == "docker-registry");
  CHECK(Has(head.steps, "registry/no proxy password"));
  CHECK_FALSE(Has(head.steps, "registry/proxy password"));
  CHECK_FALSE(Has(head.steps, "registry/TLS files are given"));
  CHECK_FALSE(Has(head.steps, "registry/proxy has a remote"));
  CHECK(Contains(head.files.at("/etc/systemd/system/docker-registry.service.d/clusterctl.conf"),
                 "\nExecStart=\nExecStart=/usr/local/sbin/clusterctl-registry-start\n"));
  CHECK(Contains(head.files.at("/usr/local/sbin/clusterctl-registry-start"),
                 "\nexec /usr/bin/docker-registry serve /etc/docker/registry/clusterctl.yml\n"));
}

// Issue 47 (3): the registry took pushes and deletes from anyone, on every
// address (addr ':5000', delete enabled, no authentication).
TEST_CASE("registry local: pulls open but read-only on the management address; pushes and deletes only with the push credential") {
  ContainerRoles roles("  registry_mode: local\n");
  Planned head = roles.PlanHost("head01");
  const std::string& pull = head.files.at("/etc/docker/registry/clusterctl.yml");
  CHECK(Contains(pull, "\n  addr: '10.0.0.1:5000'\n"));
  CHECK(Contains(pull, "\n  maintenance:\n    readonly:\n      enabled: true\n"));
  CHECK_FALSE(Contains(pull, "delete:"));
  CHECK_FALSE(Contains(pull, "auth:"));
  CHECK_FALSE(Contains(pull, "addr: ':"));

  const std::string& push = head.files.at("/etc/docker/registry/clusterctl-push.yml");
  CHECK(Contains(push, "\n  addr: '10.0.0.1:5001'\n"));
  CHECK(Contains(push, "\nauth:\n  htpasswd:\n    realm: clusterctl-registry-push\n    path: /etc/docker/registry/clusterctl/htpasswd\n"));
  CHECK(Contains(push, "\n  delete:\n    enabled: true\n"));
  CHECK(Contains(push, "\n    rootdirectory: /var/lib/docker-registry\n"));  // the pull listener's storage
  CHECK_FALSE(Contains(push, "readonly"));

  // The password: a generated secret, only in a root-only secret file, hashed
  // on the node from stdin; the htpasswd file the registry's group reads.
  const std::string password = roles.secrets->values().at("registry_push_password");
  const nlohmann::json& file = head.params.at("registry/push password");
  CHECK(file["path"] == "/etc/docker/registry/clusterctl/push-password");
  CHECK(file["secret"] == true);
  CHECK(file["mode"] == "0600");
  CHECK(file["owner"] == "root");
  const nlohmann::json& hash = head.params.at("registry/push htpasswd");
  CHECK(Contains(hash["argv"][2].get<std::string>(), "htpasswd -niB -C 10 push <\"$d/push-password\""));
  CHECK(Contains(hash["argv"][2].get<std::string>(), "umask 027"));
  CHECK(Contains(hash["argv"][2].get<std::string>(), "chgrp docker-registry"));
  CHECK(Contains(hash["unless"][2].get<std::string>(), "htpasswd -vi /etc/docker/registry/clusterctl/htpasswd push </etc/docker/registry/clusterctl/push-password"));
  CHECK(head.notify.at("registry/push htpasswd") == std::vector<std::string>{"restart push registry"});
  for (const auto& [step, params] : head.params) {
    CAPTURE(step);
    CHECK_FALSE(Contains(JsonText(params), password));
  }
  CHECK(Contains(head.files.at("/etc/systemd/system/clusterctl-registry-push.service"),
                 "\nUser=docker-registry\nExecStart=/usr/bin/docker-registry serve /etc/docker/registry/clusterctl-push.yml\n"));
  CHECK(head.params.at("registry/push service")["name"] == "clusterctl-registry-push");
  CHECK(head.params.at("registry/package")["name"] == nlohmann::json::array({"docker-registry", "apache2-utils"}));
  CHECK_FALSE(Has(head.steps, "registry/no push service"));
}

TEST_CASE("registry: both listeners on the address the inventory names; an IPv6 one in brackets") {
  ContainerRoles roles("  registry_mode: local\n  registry_listen_address: 192.0.2.5\n  registry_port: 443\n  registry_push_port: 8443\n");
  Planned head = roles.PlanHost("head01");
  CHECK(Contains(head.files.at("/etc/docker/registry/clusterctl.yml"), "\n  addr: '192.0.2.5:443'\n"));
  CHECK(Contains(head.files.at("/etc/docker/registry/clusterctl-push.yml"), "\n  addr: '192.0.2.5:8443'\n"));
  const nlohmann::json& check = head.params.at("registry/listen address");
  CHECK(check["argv"].back() == "192.0.2.5");
  CHECK(Has(ContainerRoles("  registry_mode: local\n  registry_listen_address: '[2001:db8::5]'\n").PlanHost("head01").steps,
            "registry/listen address"));
  CHECK_FALSE(Has(head.steps, "registry/TLS files are given"));
  CHECK_FALSE(Has(ContainerRoles("  registry_mode: local\n").PlanHost("head01").steps, "registry/listen address"));
}

TEST_CASE("registry proxy: a pull-through cache of the remote, its password only in a secret file") {
  ContainerRoles roles(
      "  registry_mode: proxy\n  registry_proxy_url: https://registry-1.docker.io\n"
      "  registry_proxy_username: cluster\n  registry_proxy_password_file: proxy.pw\n");
  Planned head = roles.PlanHost("head01");
  const std::string& config = head.files.at("/etc/docker/registry/clusterctl.yml");
  CHECK(Contains(config, "\nproxy:\n  remoteurl: 'https://registry-1.docker.io'\n  username: 'cluster'\n"));
  CHECK_FALSE(Contains(config, "password"));
  CHECK_FALSE(Has(head.steps, "registry/proxy has a remote"));
  const nlohmann::json& password = head.params.at("registry/proxy password");
  CHECK(password["secret"] == true);
  CHECK(password["mode"] == "0640");
  CHECK(password["group"] == "docker-registry");
  CHECK_FALSE(Has(head.steps, "registry/no proxy password"));
  // A proxy takes no pushes (its stores refuse them): no push listener, no credential.
  CHECK(Contains(config, "\n  addr: '10.0.0.1:5000'\n"));
  CHECK_FALSE(Contains(config, "readonly"));
  CHECK_FALSE(Contains(config, "auth:"));
  CHECK_FALSE(Has(head.steps, "registry/push service"));
  CHECK_FALSE(Has(head.steps, "registry/push password"));
  CHECK(Has(head.steps, "registry/no push service"));
  CHECK(Has(head.steps, "registry/no push password"));
  CHECK(Has(head.steps, "registry/no push htpasswd"));
}

TEST_CASE("registry: a proxy without a remote, a remote without proxy mode, a password without a user stop the deploy") {
  CHECK(Has(ContainerRoles("  registry_mode: proxy\n").PlanHost("head01").steps, "registry/proxy has a remote"));
  CHECK(Has(ContainerRoles("  registry_mode: local\n  registry_proxy_url: https://r.example.org\n").PlanHost("head01").steps,
            "registry/proxy has a remote"));
  CHECK(Has(ContainerRoles("  registry_mode: proxy\n  registry_proxy_url: https://r.example.org\n"
                           "  registry_proxy_password_file: proxy.pw\n")
                .PlanHost("head01")
                .steps,
            "registry/password has a user"));
}

}  // namespace clusterctl

namespace clusterctl {

// containers depends on slurm-common, which depends on sssd: visited first
// (alphabetically), it pulled sssd ahead of ldap-server on the directory
// host, where sssd then waited for its own host's ldap-server forever (the
// e2e's plan hung). A role waiting for a role of its own host comes after it.
TEST_CASE("containers on the directory host: sssd still after ldap-server, which it waits for") {
  testing::RoleHarness h(R"(cluster: lab
connection: {user: root}
vars:
  containers_runtime: crun
hosts:
  head01: {address: 10.0.0.1}
groups:
  controller: {hosts: [head01]}
  directory: {hosts: [head01]}
)",
                         {});
  Diagnostics diagnostics;
  auto inventory = LoadInventory(h.dir() + "/inventory.yaml", diagnostics);
  REQUIRE(inventory);
  auto catalog = Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, diagnostics);
  REQUIRE(catalog);
  std::vector<std::string> order;
  for (const Role* r : catalog->RolesFor(*inventory->FindHost("head01"), *inventory, {})) order.push_back(r->name);
  auto at = [&](const std::string& name) { return std::find(order.begin(), order.end(), name) - order.begin(); };
  REQUIRE(at("containers") < static_cast<long>(order.size()));
  REQUIRE(at("sssd") < static_cast<long>(order.size()));
  CHECK(at("ldap-server") < at("sssd"));
  CHECK(at("sssd") < at("slurm-common"));
}

}  // namespace clusterctl
