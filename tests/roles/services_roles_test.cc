// The built-in service roles, nfs-server, nfs-client, node-exporter,
// slurm-exporter and monitoring (roles/, templates/), planned for fake
// facts: what each writes, what a change notifies (an export change never
// restarts a server; a Prometheus configuration change reloads), and what
// the testbed cannot show (the kernel NFS server, a kernel mount, GPU
// targets).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "agent/exec/run_command.h"
#include "controller/daemon/token.h"
#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

// NVIDIA's packages from the site's mirror unless `nvidia_source` says otherwise.
std::string ServiceInventory(const std::string& implementation, const std::string& nvidia_source = "site") {
  return R"(cluster: lab
connection: {user: root}
vars:
  nvidia_driver_source: )" +
         nvidia_source + R"(
  nfs_implementation: )" +
         implementation + R"(
  nfs_exports: [{path: /export/home, clients: [compute]}]
  nfs_mounts: [{export: /export/home, path: /home}]
hosts:
  head: {address: 10.0.0.1, interfaces: {ib0: 10.10.0.1/16}}
  gpu01: {address: 10.0.0.11, interfaces: {ib0: 10.10.0.11/16}}
  gpu02: {address: 10.0.0.12, interfaces: {ib0: 10.10.0.12/16}}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, gpu02]}
  nfs_server: {hosts: [head]}
  nfs_clients: {children: [compute]}
  monitoring: {hosts: [head]}
)";
}

nlohmann::json Facts(bool kernel_nfs, int gpus = 0) {
  return {{"os", {{"id", "debian"}, {"family", "debian"}}},
          {"nvidia_driver", gpus > 0 ? nlohmann::json("550.54.14") : nlohmann::json(nullptr)},
          {"pci", {{"gpu_count", gpus}, {"hca_count", 1}}},
          {"systemd", true},
          {"nfs", {{"kernel_client", kernel_nfs}, {"kernel_server", kernel_nfs}}}};
}

class ServiceRoles : public testing::RoleHarness {
 public:
  explicit ServiceRoles(const std::string& implementation = "kernel", const std::string& nvidia_source = "site")
      : testing::RoleHarness(ServiceInventory(implementation, nvidia_source),
                             {"nfs-server", "nfs-client", "node-exporter", "slurm-exporter", "monitoring", "dcgm-exporter"}) {}
  Planned PlanAll(const std::string& host, bool kernel_nfs = true) {
    return Plan(host, std::map<std::string, nlohmann::json>{
                          {"head", Facts(kernel_nfs)}, {"gpu01", Facts(kernel_nfs, 8)}, {"gpu02", Facts(kernel_nfs)}});
  }
};

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST_CASE("nfs-server, kernel: exports over the fabric; an export change runs exportfs -ra, never a restart") {
  Planned p = ServiceRoles("kernel").PlanAll("head");
  CHECK(p.files.at("/etc/exports.d/clusterctl.exports").find(
            "/export/home 10.10.0.11(rw,sync,no_subtree_check,root_squash) 10.10.0.12(rw,sync,no_subtree_check,root_squash)\n") !=
        std::string::npos);
  CHECK(p.notify.at("nfs-server/kernel exports") == std::vector<std::string>{"export"});
  CHECK(p.params.at("nfs-server/export").at("argv") == nlohmann::json::array({"exportfs", "-ra"}));
  CHECK(p.notify.at("nfs-server/kernel server settings") == std::vector<std::string>{"restart nfs server"});
  CHECK(p.files.at("/etc/nfs.conf.d/clusterctl.conf").find("vers4.2=y\n") != std::string::npos);
  // Files first, then the kernel's nfsd is a precondition of the service.
  auto at = [&](const std::string& id) { return std::find(p.steps.begin(), p.steps.end(), id) - p.steps.begin(); };
  CHECK(at("nfs-server/kernel exports") < at("nfs-server/kernel has an NFS server"));
  CHECK(at("nfs-server/kernel has an NFS server") < at("nfs-server/kernel server"));
  CHECK_FALSE(Has(p.steps, "nfs-server/ganesha"));
}

TEST_CASE("nfs-server, ganesha: one EXPORT per export on the fabric address; an export change reloads, a setting restarts") {
  Planned p = ServiceRoles("ganesha").PlanAll("head");
  const std::string core = p.files.at("/etc/ganesha/ganesha.conf");
  CHECK(core.find("Bind_addr = 10.10.0.1;") != std::string::npos);
  CHECK(core.find("%include \"/etc/ganesha/clusterctl-exports.conf\"") != std::string::npos);
  CHECK(p.notify.at("nfs-server/ganesha configuration") == std::vector<std::string>{"restart ganesha"});
  const std::string conf = p.files.at("/etc/ganesha/clusterctl-exports.conf");
  CHECK(conf.find("Path = \"/export/home\";") != std::string::npos);
  CHECK(conf.find("Clients = 10.10.0.11, 10.10.0.12;") != std::string::npos);
  CHECK(conf.find("Squash = root_squash;") != std::string::npos);
  CHECK(p.notify.at("nfs-server/ganesha exports") == std::vector<std::string>{"reload ganesha"});
  CHECK(p.params.at("nfs-server/reload ganesha").at("state") == "reloaded");
  CHECK_FALSE(Has(p.steps, "nfs-server/kernel exports"));
}

TEST_CASE("nfs-client: the fstab entry always, the mount only where the kernel has an NFS client") {
  ServiceRoles roles;
  Planned with_kernel = roles.PlanAll("gpu01", true);
  const nlohmann::json& entry = with_kernel.params.at("nfs-client/fstab entry[/home]");
  CHECK(entry.at("source") == "10.10.0.1:/export/home");
  CHECK(entry.at("options") == "vers=4.2,hard,_netdev");
  CHECK(entry.at("state") == "present");
  CHECK(with_kernel.params.at("nfs-client/mounted[/home]").at("state") == "mounted");
  CHECK(Has(with_kernel.steps, "nfs-client/remount when idle[/home]"));
  Planned without = roles.PlanAll("gpu01", false);
  CHECK(Has(without.steps, "nfs-client/fstab entry[/home]"));
  CHECK_FALSE(Has(without.steps, "nfs-client/mounted[/home]"));
  CHECK_FALSE(Has(without.steps, "nfs-client/remount when idle[/home]"));
  const std::vector<std::string> head_roles = roles.PlanAll("head").roles;
  CHECK_MESSAGE(!Has(head_roles, "nfs-client"), "the server mounts nothing");
  CHECK(Has(head_roles, "nfs-server"));
  CHECK(Has(head_roles, "monitoring"));
}

// The testbed's shape with a NAS outside the inventory: gpu01 mounts two of
// its exports, one with FS-Cache; gpu02 only the cluster's /home.
std::string ExternalInventory(const std::string& gpu01_vars) {
  std::string text = ServiceInventory("ganesha");
  const std::string host = "  gpu01: {address: 10.0.0.11, interfaces: {ib0: 10.10.0.11/16}}";
  text.replace(text.find(host), host.size(),
               "  gpu01:\n    address: 10.0.0.11\n    interfaces: {ib0: 10.10.0.11/16}\n    vars:\n" + gpu01_vars);
  return text;
}

nlohmann::json WithCachefiles(nlohmann::json facts, bool cachefiles) {
  facts["nfs"]["kernel_cachefiles"] = cachefiles;
  return facts;
}

TEST_CASE("nfs-client, external: a NAS's exports in fstab with their options; fsc configures cachefilesd") {
  testing::RoleHarness roles(ExternalInventory("      nfs_external_mounts:\n"
                                               "        - {server: 10.0.0.99, export: /vol/projects, path: /projects, "
                                               "options: [hard, nconnect=4, vers=3], fsc: true}\n"
                                               "        - {server: nas.example.org, export: /vol/scratch, path: /scratch}\n"),
                             {"nfs-server", "nfs-client"});
  auto plan = [&](const std::string& host, bool kernel) {
    return roles.Plan(host, std::map<std::string, nlohmann::json>{{"head", Facts(kernel)},
                                                                   {"gpu01", WithCachefiles(Facts(kernel), kernel)},
                                                                   {"gpu02", WithCachefiles(Facts(kernel), kernel)}});
  };
  Planned p = plan("gpu01", true);
  CHECK(p.params.at("nfs-client/fstab entry[/home]").at("source") == "10.10.0.1:/export/home");
  const nlohmann::json& projects = p.params.at("nfs-client/fstab entry[/projects]");
  CHECK(projects.at("source") == "10.0.0.99:/vol/projects");
  CHECK(projects.at("options") == "hard,nconnect=4,vers=3,_netdev,fsc");
  CHECK(projects.at("fstype") == "nfs");
  CHECK(p.params.at("nfs-client/fstab entry[/scratch]").at("source") == "nas.example.org:/vol/scratch");
  CHECK(p.params.at("nfs-client/fstab entry[/scratch]").at("options") == "hard,nosuid,nodev,_netdev");
  CHECK(p.params.at("nfs-client/mounted[/projects]").at("state") == "mounted");
  CHECK(Has(p.steps, "nfs-client/cachefilesd package"));
  CHECK(p.files.at("/etc/cachefilesd.conf").find("\ndir /var/cache/fscache\n") != std::string::npos);
  CHECK(p.files.at("/etc/default/cachefilesd").find("\nRUN=yes\n") != std::string::npos);
  CHECK(p.notify.at("nfs-client/cachefilesd configuration") == std::vector<std::string>{"restart cachefilesd"});
  CHECK(p.params.at("nfs-client/restart cachefilesd").at("state") == "restarted");
  CHECK(Has(p.handlers, "nfs-client/restart cachefilesd"));
  CHECK(Has(p.steps, "nfs-client/cachefilesd"));
  // A kernel without cachefiles (the testbed's): configured, never started.
  Planned without = plan("gpu01", false);
  CHECK(Has(without.steps, "nfs-client/cachefilesd configuration"));
  CHECK_FALSE(Has(without.steps, "nfs-client/cachefilesd"));
  CHECK_FALSE(Has(without.handlers, "nfs-client/restart cachefilesd"));  // a restart would run the daemon only to fail
  CHECK_FALSE(Has(without.steps, "nfs-client/mounted[/projects]"));
  // A client without fsc gets no cachefilesd; the server exports only its own.
  Planned other = plan("gpu02", true);
  CHECK_FALSE(Has(other.steps, "nfs-client/cachefilesd package"));
  CHECK_FALSE(other.params.count("nfs-client/fstab entry[/projects]"));
  CHECK(plan("head", true).files.at("/etc/ganesha/clusterctl-exports.conf").find("/vol/") == std::string::npos);
}

TEST_CASE("nfs-client, external: a bad entry is a planning error naming the host, the entry and the option") {
  testing::RoleHarness roles(ExternalInventory("      nfs_external_mounts: [{server: 10.0.0.99, export: /data, options: [proto=rdma, "
                                               "rsize=1000]}]\n"),
                             {"nfs-client"});
  const std::string errors = roles.PlanErrors("gpu01", Facts(true));
  INFO(errors);
  CHECK(errors.find("nfs_external_mounts[0] of gpu01 (10.0.0.99:/data on /data): option 'rsize=1000': rsize=1000 is outside "
                    "4096-1048576, a multiple of 4096") != std::string::npos);
}

TEST_CASE("monitoring: a target file per host and exporter, DCGM only on GPU hosts; configuration reloads") {
  Planned p = ServiceRoles().PlanAll("head");
  CHECK(p.files.at("/etc/prometheus/file_sd/node/gpu02.yml").find("- targets: ['10.0.0.12:9100']") != std::string::npos);
  CHECK(p.files.at("/etc/prometheus/file_sd/node/gpu02.yml").find("nfs_client: 'true'") != std::string::npos);
  CHECK(p.files.at("/etc/prometheus/file_sd/node/head.yml").find("nfs_client: 'false'") != std::string::npos);
  CHECK(p.files.at("/etc/prometheus/file_sd/slurm/head.yml").find("'10.0.0.1:9341'") != std::string::npos);
  CHECK(p.files.count("/etc/prometheus/file_sd/dcgm/gpu01.yml") == 1);
  CHECK(p.files.count("/etc/prometheus/file_sd/dcgm/gpu02.yml") == 0);
  CHECK(p.notify.at("monitoring/configuration") == std::vector<std::string>{"reload prometheus"});
  CHECK(p.notify.at("monitoring/alert rules") == std::vector<std::string>{"reload prometheus"});
  CHECK(p.notify.at("monitoring/node target[gpu02]").empty());  // Prometheus watches the files itself
  CHECK(p.notify.at("monitoring/arguments") == std::vector<std::string>{"restart prometheus"});
  CHECK(p.files.at("/etc/default/prometheus").find("--web.listen-address=10.0.0.1:9090") != std::string::npos);
  const std::string rules = p.files.at("/etc/prometheus/rules/clusterctl.yml");
  CHECK(rules.find("node_filesystem_size_bytes{mountpoint=\"/home\", fstype=~\"nfs4?\"}") != std::string::npos);
  CHECK(p.files.at("/etc/prometheus/prometheus.yml").find("files: ['/etc/prometheus/file_sd/dcgm/*.yml']") !=
        std::string::npos);
  Planned gpu = ServiceRoles().PlanAll("gpu01");
  CHECK(Has(gpu.roles, "dcgm-exporter"));
  CHECK(gpu.files.at("/etc/systemd/system/nvidia-dcgm-exporter.service.d/clusterctl-listen.conf")
            .find("DCGM_EXPORTER_LISTEN=10.0.0.11:9400") != std::string::npos);
  CHECK_FALSE(Has(ServiceRoles().PlanAll("gpu02").roles, "dcgm-exporter"));
  // Gated like DCGM: no loaded driver needed (the first deploy's facts
  // predate it), but NVIDIA's repository; Debian's driver has neither.
  nlohmann::json no_driver = Facts(true, 8);
  no_driver["nvidia_driver"] = nullptr;
  CHECK(Has(ServiceRoles().Plan("gpu01", no_driver).roles, "dcgm-exporter"));
  ServiceRoles distro("kernel", "distro");
  CHECK_FALSE(Has(distro.PlanAll("gpu01").roles, "dcgm-exporter"));
  CHECK(distro.PlanAll("head").files.count("/etc/prometheus/file_sd/dcgm/gpu01.yml") == 0);
  CHECK(ServiceRoles().PlanAll("gpu01").files.at("/etc/default/prometheus-node-exporter").find(
            "--web.listen-address=10.0.0.11:9100") != std::string::npos);
}

TEST_CASE("monitoring: the clusterctl job scrapes the daemon with its metrics token, written only where a daemon is named") {
  // Without clusterctl_metrics_targets the token never leaves the controller.
  Planned none = ServiceRoles().PlanAll("head");
  CHECK(Has(none.steps, "monitoring/no clusterctl token"));
  CHECK_FALSE(Has(none.steps, "monitoring/clusterctl token"));
  const std::string config = none.files.at("/etc/prometheus/prometheus.yml");
  CHECK(config.find("  - job_name: clusterctl\n    authorization:\n      credentials_file: /etc/prometheus/clusterctl.token\n"
                    "    file_sd_configs:\n      - files: ['/etc/prometheus/file_sd/clusterctl/*.yml']\n") !=
        std::string::npos);
  CHECK_MESSAGE(config.find("job_name: clusterctl") == config.rfind("job_name: clusterctl"), "one clusterctl job");

  std::string inventory = ServiceInventory("kernel");
  inventory.replace(inventory.find("vars:\n"), 6, "vars:\n  clusterctl_metrics_targets: ['10.0.0.1:9420']\n");
  testing::RoleHarness harness(inventory, {"monitoring"});
  const SecretVault& vault = harness.UseSecrets();
  Planned with = harness.Plan("head", std::map<std::string, nlohmann::json>{{"head", Facts(true)}});
  CHECK(Has(with.steps, "monitoring/clusterctl token"));
  CHECK_FALSE(Has(with.steps, "monitoring/no clusterctl token"));
  const nlohmann::json& token = with.params.at("monitoring/clusterctl token");
  CHECK(token.at("secret") == true);
  CHECK(token.at("owner") == "root");
  CHECK(token.at("group") == "prometheus");
  CHECK(token.at("mode") == "0640");
  // The metrics token, never the admin one (issue 47, item 4): Prometheus's
  // file cannot deploy or stop anything.
  CHECK(with.files.at("/etc/prometheus/clusterctl.token") == vault.values().at(kDaemonMetricsTokenSecret));
  CHECK_FALSE(vault.values().count(kDaemonTokenSecret));
  CHECK(with.files.at("/etc/prometheus/file_sd/clusterctl/clusterctl.yml").find("- targets: ['10.0.0.1:9420']") !=
        std::string::npos);
}

TEST_CASE("monitoring declares the daemon's metrics token secret exactly as clusterctl serve does, and no other") {
  // One secret, two declarations: the daemon's (controller/daemon/token.cc)
  // and the role's. Unequal, the vault would refuse the stored token as the
  // wrong size, or the two would be different secrets.
  Diagnostics diagnostics;
  auto catalog = Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, diagnostics);
  REQUIRE_MESSAGE(catalog, diagnostics.ToString());
  const Role* monitoring = catalog->Find("monitoring");
  REQUIRE(monitoring);
  REQUIRE(monitoring->secrets.count(kDaemonMetricsTokenSecret));
  CHECK(monitoring->secrets.at(kDaemonMetricsTokenSecret) == kDaemonTokenSpec);
  CHECK_FALSE(monitoring->secrets.count(kDaemonTokenSecret));
  CHECK_FALSE(monitoring->secrets.count(kDaemonReadTokenSecret));
}

// Alertmanager (issue 38): receivers and routes from the inventory, the
// credentials only as secret files, grouped by cluster and node.
std::string AlertInventory(const std::string& extra) {
  return R"(cluster: lab
connection: {user: root}
vars:
)" + extra + R"(
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
groups:
  compute: {hosts: [gpu01]}
  monitoring: {hosts: [head]}
)";
}

TEST_CASE("alertmanager: receivers and routes from the inventory, grouped by cluster and node; credentials as secret files") {
  testing::RoleHarness harness(AlertInventory(R"(  alertmanager_webhooks: [{name: oncall, url: 'http://10.0.0.5:9099/alerts'}]
  alertmanager_slack_webhooks: [{name: chat, url_file: slack.url, severity: critical}]
  alertmanager_emails: [{name: ops, to: ops@example.org}]
  alertmanager_smarthost: mail.example.org:587
  alertmanager_email_from: am@example.org
  alertmanager_smtp_username: am@example.org
  alertmanager_smtp_password_file: smtp.password)"),
                               {"monitoring", "alertmanager"});
  std::ofstream(harness.dir() + "/slack.url") << "https://hooks.slack.com/services/T0/B0/secret\n";
  std::ofstream(harness.dir() + "/smtp.password") << "hunter2\n";
  Planned p = harness.Plan("head", Facts(true));
  const std::string config = p.files.at("/etc/prometheus/alertmanager.yml");
  CHECK(config.find("  group_by: [cluster, node]\n") != std::string::npos);
  CHECK(config.find("  smtp_smarthost: 'mail.example.org:587'\n  smtp_from: 'am@example.org'\n  smtp_require_tls: true\n"
                    "  smtp_auth_username: 'am@example.org'\n"
                    "  smtp_auth_password_file: /etc/prometheus/alertmanager-secrets/smtp-password\n") != std::string::npos);
  CHECK(config.find("  routes:\n    - receiver: 'oncall'\n      continue: true\n    - receiver: 'chat'\n      continue: true\n"
                    "      matchers: ['severity=\"critical\"']\n    - receiver: 'ops'\n      continue: true\n") !=
        std::string::npos);
  CHECK(config.find("  - name: 'oncall'\n    webhook_configs:\n      - url: 'http://10.0.0.5:9099/alerts'\n"
                    "        send_resolved: true\n") != std::string::npos);
  CHECK(config.find("      - api_url_file: /etc/prometheus/alertmanager-secrets/slack-chat.url\n") != std::string::npos);
  CHECK(config.find("      - to: 'ops@example.org'\n") != std::string::npos);
  CHECK(config.find("secret") == config.find("secrets/"));  // no credential in the text, only the files' paths
  CHECK(config.find("hunter2") == std::string::npos);
  CHECK(config.find("hooks.slack.com") == std::string::npos);
  CHECK(p.params.at("alertmanager/configuration").at("validate") ==
        nlohmann::json::array({"amtool", "check-config", "%s"}));
  CHECK(p.notify.at("alertmanager/configuration") == std::vector<std::string>{"reload alertmanager"});
  // The files clusterctl takes over may hold a site's secrets inline
  // (smtp_auth_password, basic_auth): secret, so no diff and no backup
  // shows them (issue 47, item 6).
  CHECK(p.params.at("alertmanager/configuration").at("secret") == true);
  CHECK(p.params.at("monitoring/configuration").at("secret") == true);
  CHECK(p.notify.at("alertmanager/arguments") == std::vector<std::string>{"restart alertmanager"});
  for (const char* secret : {"alertmanager/smtp password", "alertmanager/slack webhook url[chat]"}) {
    CAPTURE(secret);
    CHECK(p.params.at(secret).at("secret") == true);
    CHECK(p.params.at(secret).at("group") == "prometheus");
    CHECK(p.params.at(secret).at("mode") == "0640");
  }
  CHECK_FALSE(Has(p.steps, "alertmanager/email settings are given"));
  CHECK(p.files.at("/etc/default/prometheus-alertmanager").find("--web.listen-address=10.0.0.1:9093 --cluster.listen-address=\"") !=
        std::string::npos);
  CHECK(p.files.at("/etc/prometheus/prometheus.yml").find("alerting:\n  alertmanagers:\n    - static_configs:\n"
                                                          "        - targets: ['10.0.0.1:9093']\n") != std::string::npos);
  // Every node alert keeps the target's node label: the target files carry it.
  CHECK(p.files.at("/etc/prometheus/file_sd/node/gpu01.yml").find("node: 'gpu01'") != std::string::npos);
}

TEST_CASE("alertmanager: its configuration is 0640 root:prometheus; a removed receiver's secret file goes") {
  testing::RoleHarness harness(AlertInventory(R"(  alertmanager_slack_webhooks: [{name: chat, url_file: slack.url}, {name: ops.2, url_file: slack.url}])"),
                               {"monitoring", "alertmanager"});
  std::ofstream(harness.dir() + "/slack.url") << "https://hooks.slack.com/services/T0/B0/secret\n";
  Planned p = harness.Plan("head", Facts(true));
  const nlohmann::json& config = p.params.at("alertmanager/configuration");
  CHECK(config.at("mode") == "0640");  // a webhook's URL may carry a token
  CHECK(config.at("owner") == "root");
  CHECK(config.at("group") == "prometheus");
  // The cleanup, run here on a copy of the secrets directory: what the
  // inventory still names stays, every other slack-*.url goes, nothing else.
  const nlohmann::json& cleanup = p.params.at("alertmanager/removed slack webhook urls");
  CHECK(cleanup.at("argv").back() == "/etc/prometheus/alertmanager-secrets");
  testing::TempDir secrets;
  for (const char* file : {"slack-chat.url", "slack-ops.2.url", "slack-old.url", "slack-ops.url", "smtp-password"}) {
    std::ofstream(secrets.path() + "/" + file) << "x\n";
  }
  const auto run = [&](const char* which) {
    agent::CommandSpec spec;
    spec.argv = cleanup.at(which).get<std::vector<std::string>>();
    spec.argv.back() = secrets.path();
    return agent::RunCommand(spec).exit_code;
  };
  CHECK(run("unless") == 1);  // stale files: the step has work
  CHECK(run("argv") == 0);
  CHECK(run("unless") == 0);  // and then none
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(secrets.path())) left.push_back(entry.path().filename());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"slack-chat.url", "slack-ops.2.url", "smtp-password"});
  // No Slack receiver at all: every slack-*.url goes.
  Planned none = testing::RoleHarness(AlertInventory("  alertmanager_repeat_interval: 4h"), {"monitoring", "alertmanager"})
                     .Plan("head", Facts(true));
  CHECK(none.params.at("alertmanager/removed slack webhook urls").at("argv")[4] == "");
}

TEST_CASE("alertmanager: no receiver, nobody; email receivers without a smarthost stop the role before any change") {
  Planned none = testing::RoleHarness(AlertInventory("  alertmanager_repeat_interval: 4h"), {"monitoring", "alertmanager"}).Plan("head", Facts(true));
  const std::string config = none.files.at("/etc/prometheus/alertmanager.yml");
  CHECK(config.find("route:\n  receiver: clusterctl-nobody\n") != std::string::npos);
  CHECK(config.find("smtp_") == std::string::npos);
  CHECK(Has(none.steps, "alertmanager/no smtp password"));
  Planned mail = testing::RoleHarness(AlertInventory("  alertmanager_emails: [{name: ops, to: ops@example.org}]"),
                                      {"monitoring", "alertmanager"})
                     .Plan("head", Facts(true));
  CHECK(Has(mail.steps, "alertmanager/email settings are given"));
  CHECK(mail.steps.front() == "alertmanager/email settings are given");
}

TEST_CASE("alertmanager: a receiver's value that would break out of its quotes is refused at planning") {
  testing::RoleHarness harness(AlertInventory("  alertmanager_webhooks: [{name: x, url: \"http://h/a'\\n  - name: evil\"}]"),
                               {"monitoring", "alertmanager"});
  const std::string errors = harness.PlanErrors("head", Facts(true));
  CHECK(errors.find("the value of 'url'") != std::string::npos);
}

TEST_CASE("grafana: a repository key file outside the inventory's directory is never read (issue 31)") {
  auto plan_errors = [](const std::string& key_file, const std::string& link_target = "") {
    testing::RoleHarness harness(R"(cluster: lab
connection: {user: root}
vars:
  grafana_repository: https://apt.grafana.com
  grafana_repository_key_file: ")" + key_file + R"("
hosts:
  head: {address: 10.0.0.1}
groups:
  monitoring: {hosts: [head]}
)",
                                 {"monitoring", "grafana"});
    std::ofstream(harness.dir() + "/grafana.asc") << "-----BEGIN PGP PUBLIC KEY BLOCK-----\n";
    if (!link_target.empty()) std::filesystem::create_symlink(link_target, harness.dir() + "/" + key_file);
    return harness.PlanErrors("head", Facts(true));
  };
  // The controller's own SSH key (the issue's example), a path up, a link out.
  for (const auto& [key_file, link, why] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"/root/.ssh/id_ed25519", "", "(an absolute path outside it)"},
           {"../../root/.ssh/id_ed25519", "", "('..' leads out of it)"},
           {"linked.asc", "/etc/passwd", "(a symbolic link leads out of it)"}}) {
    CAPTURE(key_file);
    const std::string errors = plan_errors(key_file, link);
    CHECK(errors.find("'signed repository' for head: repository key_file (variable grafana_repository_key_file) '" +
                      key_file + "' resolves to ") != std::string::npos);
    CHECK(errors.find(", outside the inventory's directory ") != std::string::npos);
    CHECK(errors.find(why + ": only files inside it are sent to nodes") != std::string::npos);
  }
  // A key beside the inventory is read as before (any error about it would name it).
  const std::string beside = plan_errors("grafana.asc");
  CHECK(beside.find("grafana.asc") == std::string::npos);
  CHECK(beside.find("key_file") == std::string::npos);
}

}  // namespace clusterctl
