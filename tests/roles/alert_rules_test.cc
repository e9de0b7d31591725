// The monitoring role's alert rules (templates/prometheus-rules.yml.mustache),
// rendered for an inventory and run by Prometheus's own rule tester
// (`promtool test rules`, Debian's prometheus: scripts/install-deps.sh
// --daemon) on series as the exporters give them: every node alert fires
// labelled with the node it is about, so a maintenance silence (matcher
// node=<host>) covers it (issue 38, "Maintenance does not page anyone").
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/roles/role_harness.h"
#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: lab
connection: {user: root}
vars:
  prometheus_alert_for: 2m
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
  gpu02: {address: 10.0.0.12}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, gpu02]}
  monitoring: {hosts: [head]}
)";

// Series as Prometheus stores them: the Slurm exporter runs on the
// controller, whose target label `node` wins over the scraped one (kept as
// exported_node); the node exporters' targets carry their node.
const char* kRuleTests = R"(rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'slurm_node_state{job="slurm", instance="10.0.0.1:9341", node="head", exported_node="gpu01", state="drained"}'
        values: '1x10'
      - series: 'slurm_node_state{job="slurm", instance="10.0.0.1:9341", node="head", exported_node="gpu02", state="idle"}'
        values: '1x10'
      - series: 'up{job="node", instance="10.0.0.12:9100", node="gpu02"}'
        values: '0x10'
      - series: 'up{job="node", instance="10.0.0.11:9100", node="gpu01"}'
        values: '1x10'
    alert_rule_test:
      - eval_time: 1m
        alertname: SlurmNodeDown
        exp_alerts: []
      - eval_time: 5m
        alertname: SlurmNodeDown
        exp_alerts:
          - exp_labels: {node: gpu01, severity: warning}
            exp_annotations: {summary: "A node is down or drained in Slurm"}
      - eval_time: 5m
        alertname: NodeDown
        exp_alerts:
          - exp_labels: {job: node, instance: "10.0.0.12:9100", node: gpu02, severity: critical}
            exp_annotations: {summary: "A node exporter does not answer: the node is down or unreachable"}
)";

TEST_CASE("alert rules: a node drained in Slurm or down fires its own alert, labelled with the node (promtool)") {
  testing::RoleHarness roles(kInventory, {"monitoring", "alertmanager", "node-exporter", "slurm-exporter", "dcgm-exporter"});
  const nlohmann::json facts = {{"os", {{"id", "debian"}, {"family", "debian"}}},
                                {"systemd", true},
                                {"pci", {{"gpu_count", 0}}},
                                {"nvidia_driver", nullptr}};
  testing::Planned head = roles.Plan("head", facts);
  testing::TempDir dir;
  std::ofstream(dir.path() + "/rules.yml") << head.files.at("/etc/prometheus/rules/clusterctl.yml");
  std::ofstream(dir.path() + "/tests.yml") << kRuleTests;
  const std::string command = "cd '" + dir.path() + "' && promtool test rules tests.yml >out.txt 2>&1";
  const int status = std::system(command.c_str());
  std::stringstream out;
  out << std::ifstream(dir.path() + "/out.txt").rdbuf();
  REQUIRE_MESSAGE(out.str().find("not found") == std::string::npos,
                  "promtool (Debian's prometheus) is needed: scripts/install-deps.sh --daemon");
  CHECK_MESSAGE(status == 0, out.str());
}

// With BMCs: the IPMI exporter's series as Debian 12's exporter (1.6.1)
// names them (ipmi_sel_logs_count: its /ipmi answer for ipmi_sim, captured
// in tests/fixtures/captured/SOURCES.md, "prometheus-ipmi-exporter"); the
// target file labels each BMC's series with its host.
const char* kBmcRuleTests = R"yaml(rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'ipmi_sel_logs_count{job="ipmi", instance="10.0.9.11", node="gpu01"}'
        values: '0x5 1x10 0x10'
      - series: 'ipmi_sel_logs_count{job="ipmi", instance="10.0.9.12", node="gpu02"}'
        values: '3x5 0x5 3x20'
      - series: 'ipmi_temperature_state{job="ipmi", instance="10.0.9.12", node="gpu02", id="18", name="Inlet Temp"}'
        values: '0x3 2x10'
      - series: 'ipmi_fan_speed_state{job="ipmi", instance="10.0.9.11", node="gpu01", id="12", name="Fan1A"}'
        values: '1x10'
      - series: 'ipmi_up{job="ipmi", instance="10.0.9.12", node="gpu02", collector="sel"}'
        values: '1x3 0x10'
    alert_rule_test:
      - eval_time: 4m
        alertname: BmcSelNewEntries
        exp_alerts: []
      - eval_time: 8m
        alertname: BmcSelNewEntries
        exp_alerts:
          - exp_labels: {job: ipmi, instance: "10.0.9.11", node: gpu01, severity: warning}
            exp_annotations: {summary: "New entries in the BMC's event log (SEL): read them with clusterctl power sel, judge them with validate --checks bmc.sel"}
      - eval_time: 25m
        alertname: BmcSelNewEntries
        exp_alerts:
          - exp_labels: {job: ipmi, instance: "10.0.9.12", node: gpu02, severity: warning}
            exp_annotations: {summary: "New entries in the BMC's event log (SEL): read them with clusterctl power sel, judge them with validate --checks bmc.sel"}
      - eval_time: 8m
        alertname: BmcSensorCritical
        exp_alerts:
          - exp_labels: {instance: "10.0.9.12", node: gpu02, id: "18", name: "Inlet Temp", severity: critical}
            exp_annotations: {summary: "A BMC sensor (temperature, fan, voltage, current, power) is in its critical state"}
      - eval_time: 8m
        alertname: BmcUnreadable
        exp_alerts:
          - exp_labels: {job: ipmi, instance: "10.0.9.12", node: gpu02, collector: sel, severity: warning}
            exp_annotations: {summary: "The IPMI exporter cannot read a BMC (credentials, no answer, or a collector the BMC lacks)"}
)yaml";

// promtool's verdict on `tests` over `rules` ("" when they pass).
std::string PromtoolTestRules(const std::string& rules, const std::string& tests) {
  testing::TempDir dir;
  std::ofstream(dir.path() + "/rules.yml") << rules;
  std::ofstream(dir.path() + "/tests.yml") << tests;
  const std::string command = "cd '" + dir.path() + "' && promtool test rules tests.yml >out.txt 2>&1";
  const int status = std::system(command.c_str());
  std::stringstream out;
  out << std::ifstream(dir.path() + "/out.txt").rdbuf();
  return status == 0 ? "" : out.str();
}

TEST_CASE("alert rules with BMCs: a grown SEL, a critical sensor and an unreadable BMC fire for their node (promtool)") {
  std::string inventory = kInventory;
  inventory.replace(inventory.find("hosts:"), 6, "bmc: {user: admin}\nhosts:");
  inventory.replace(inventory.find("gpu01: {address: 10.0.0.11}"), 27,
                    "gpu01: {address: 10.0.0.11, bmc: {address: 10.0.9.11, password_file: gpu01.pw}}");
  inventory.replace(inventory.find("gpu02: {address: 10.0.0.12}"), 27,
                    "gpu02: {address: 10.0.0.12, bmc: {address: 10.0.9.12, password_file: gpu02.pw}}");
  testing::RoleHarness roles(kInventory, {"monitoring", "ipmi-exporter"});
  for (const char* host : {"gpu01", "gpu02"}) {  // beside the inventory before it is loaded
    const std::string file = roles.dir() + "/" + host + ".pw";
    std::ofstream(file) << "a-bmc-password-" << host << "\n";
    REQUIRE(::chmod(file.c_str(), 0600) == 0);
  }
  roles.UseInventory(inventory);
  const nlohmann::json facts = {{"os", {{"id", "debian"}, {"family", "debian"}}}, {"systemd", true}};
  testing::Planned head = roles.Plan("head", facts);
  const std::string rules = head.files.at("/etc/prometheus/rules/clusterctl.yml");
  CHECK(rules.find("increase(ipmi_sel_logs_count[1h]) > 0 and ipmi_sel_logs_count > 0") != std::string::npos);
  const std::string verdict = PromtoolTestRules(rules, kBmcRuleTests);
  CHECK_MESSAGE(verdict.empty(), verdict);
}

}  // namespace
}  // namespace clusterctl
