// The container roles (issue 37), planned for fake facts: containers
// (Slurm's oci.conf running a rootless crun or runc through clusterctl's
// wrapper, clusterctl-image-bundle with the cluster's registry, the
// registry's CA trusted) on every Slurm host when containers_runtime is set;
// registry (Debian's docker-registry over TLS) on the controller, local or a
// pull-through cache whose password travels only as a secret file.
#include <doctest/doctest.h>

#include <fstream>

#include "controller/engine/role_harness.h"

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
  }
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

TEST_CASE("registry local: TLS with the site's files, clusterctl's configuration through a drop-in, no proxy") {
  ContainerRoles roles("  registry_mode: local\n  registry_port: 5443\n");
  Planned head = roles.PlanHost("head01");
  REQUIRE(Has(head.roles, "registry"));
  const std::string& config = head.files.at("/etc/docker/registry/clusterctl.yml");
  CHECK(Contains(config, "\nhttp:\n  addr: ':5443'\n  tls:\n    certificate: /etc/docker/registry/clusterctl/server.pem\n"
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
