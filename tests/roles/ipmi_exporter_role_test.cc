// The ipmi-exporter role and the monitoring role's ipmi job (roles/,
// templates/), planned where the inventory has BMCs: the exporter's config
// holds each BMC's credentials in a secret file only root reads, which the
// exporter reads as a systemd credential of its own user; Prometheus's
// config and target files hold addresses only; without BMCs neither appears.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "controller/state/secret_vault.h"
#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: lab
connection: {user: root}
bmc: {user: admin, cipher_suite: 3}
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11, bmc: {address: 10.0.9.11, password_file: gpu01.pw}}
  gpu02: {address: 10.0.0.12, bmc: {address: 10.0.9.12, port: 6230, password_file: gpu02.pw, interface: lan}}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, gpu02]}
  monitoring: {hosts: [head]}
)";

const nlohmann::json kFacts = {{"os", {{"id", "debian"}, {"family", "debian"}}}, {"systemd", true}};

// The password files are written beside the inventory before it is loaded
// (the loader checks they exist).
struct BmcRoles : testing::RoleHarness {
  explicit BmcRoles(const std::string& inventory = kInventory)
      : testing::RoleHarness("cluster: lab\nhosts:\n  head: {address: 10.0.0.1}\n", {"monitoring", "ipmi-exporter"}) {
    Password("gpu01", "pw-of-gpu01-BMC", 0600);
    Password("gpu02", "pw-of-gpu02-BMC", 0600);
    UseInventory(inventory);
  }
  void Password(const std::string& host, const std::string& password, mode_t mode) {
    const std::string file = dir() + "/" + host + ".pw";
    std::ofstream(file) << password << "\n";
    REQUIRE(::chmod(file.c_str(), mode) == 0);
  }
};

bool Has(const std::vector<std::string>& steps, const std::string& step) {
  return std::find(steps.begin(), steps.end(), step) != steps.end();
}

}  // namespace

TEST_CASE("ipmi-exporter: one module per BMC with its credentials, in a secret file root alone reads") {
  BmcRoles roles;
  roles.UseSecrets();
  testing::Planned head = roles.Plan("head", kFacts);
  const nlohmann::json& config = head.params.at("ipmi-exporter/configuration");
  CHECK(config.at("secret") == true);
  CHECK(config.at("owner") == "root");
  CHECK(config.at("mode") == "0600");
  CHECK(head.params.at("ipmi-exporter/config directory").at("mode") == "0700");
  const std::string modules = head.files.at("/etc/prometheus/ipmi-exporter/ipmi.yml");
  CHECK(modules.find("  default:\n    collectors: []\n") != std::string::npos);
  CHECK(modules.find("  \"10.0.9.11\":\n    user: \"admin\"\n    pass: \"pw-of-gpu01-BMC\"\n    driver: \"LAN_2_0\"\n"
                     "    privilege: \"user\"\n    timeout: 10000\n    collectors:\n      - \"bmc\"\n      - \"ipmi\"\n"
                     "      - \"chassis\"\n      - \"sel\"\n    workaround_flags:\n") != std::string::npos);
  CHECK(modules.find("  \"10.0.9.12:6230\":\n    user: \"admin\"\n    pass: \"pw-of-gpu02-BMC\"\n    driver: \"LAN\"\n") !=
        std::string::npos);
  // The exporter runs as a user of its own and reads the config as its credential.
  const std::string unit = head.files.at("/etc/systemd/system/prometheus-ipmi-exporter.service.d/clusterctl.conf");
  CHECK(unit.find("User=prometheus-ipmi-exporter\nDynamicUser=yes\nCacheDirectory=prometheus-ipmi-exporter\n"
                  "LoadCredential=ipmi.yml:/etc/prometheus/ipmi-exporter/ipmi.yml\nExecStart=\n"
                  "ExecStart=/usr/bin/prometheus-ipmi-exporter --config.file=%d/ipmi.yml --web.listen-address=10.0.0.1:9290\n") !=
        std::string::npos);
  // Prometheus: one target file per BMC, the ipmi job, and no password anywhere but the exporter's config.
  CHECK(head.files.at("/etc/prometheus/file_sd/ipmi/gpu02.yml").find("- targets: ['10.0.9.12:6230']\n  labels:\n    node: 'gpu02'\n") !=
        std::string::npos);
  const std::string prometheus = head.files.at("/etc/prometheus/prometheus.yml");
  CHECK(prometheus.find("  - job_name: ipmi\n    metrics_path: /ipmi\n") != std::string::npos);
  CHECK(prometheus.find("        target_label: __param_module\n") != std::string::npos);
  CHECK(prometheus.find("        replacement: '10.0.0.1:9290'\n") != std::string::npos);
  for (const auto& [path, body] : head.files) {
    if (path == "/etc/prometheus/ipmi-exporter/ipmi.yml") continue;
    CHECK_MESSAGE(body.find("pw-of-gpu0") == std::string::npos, path << " holds a BMC password");
  }
}

TEST_CASE("ipmi-exporter: variables reach the modules; no BMC, no exporter and no ipmi job") {
  std::string inventory = kInventory;
  inventory.replace(inventory.find("hosts:"), 6,
                    "vars:\n  ipmi_exporter_collectors: [bmc, sel]\n  ipmi_exporter_workaround_flags: [opensesspriv]\n"
                    "  ipmi_exporter_privilege: admin\nhosts:");
  BmcRoles roles(inventory);
  const std::string modules = roles.Plan("head", kFacts).files.at("/etc/prometheus/ipmi-exporter/ipmi.yml");
  CHECK(modules.find("    privilege: \"admin\"\n    timeout: 10000\n    collectors:\n      - \"bmc\"\n      - \"sel\"\n"
                     "    workaround_flags:\n      - \"opensesspriv\"\n") != std::string::npos);

  testing::RoleHarness none(R"(cluster: lab
connection: {user: root}
hosts:
  head: {address: 10.0.0.1}
groups:
  monitoring: {hosts: [head]}
)", {"monitoring", "ipmi-exporter"});
  testing::Planned head = none.Plan("head", kFacts);
  CHECK(std::none_of(head.roles.begin(), head.roles.end(), [](const std::string& r) { return r == "ipmi-exporter"; }));
  CHECK(head.files.at("/etc/prometheus/prometheus.yml").find("job_name: ipmi") == std::string::npos);
  CHECK(head.files.at("/etc/prometheus/rules/clusterctl.yml").find("Bmc") == std::string::npos);
  CHECK_FALSE(Has(head.steps, "ipmi-exporter/configuration"));
}

TEST_CASE("ipmi-exporter: a password file others may read fails the plan naming it") {
  BmcRoles roles;
  roles.Password("gpu02", "pw-of-gpu02-BMC", 0644);
  const std::string errors = roles.PlanErrors("head", kFacts);
  CHECK(errors.find("bmc password file " + roles.dir() + "/gpu02.pw may be read by others (mode 0644): chmod 600 it"
                    " (host gpu02, for the IPMI exporter)") != std::string::npos);
  CHECK(errors.find("pw-of-gpu02") == std::string::npos);
}

}  // namespace clusterctl
