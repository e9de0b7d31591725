// The nvidia-mig role (issue 50, MIG): the inventory's layout checked when
// it loads, and the plan of a GPU node with one: the nvidia_mig step that
// drains before and restarts slurmd after a change, then the resume the
// change owes (a handler).
#include <doctest/doctest.h>


#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

std::string MigInventory(const std::string& layout) {
  return "cluster: lab\nvars:\n  nvidia_driver_branch: \"550\"\n" R"(
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01], vars: {nvidia_mig_layout: )" + layout + "}}\n";
}

std::string InventoryProblems(const std::string& layout) {
  return testing::InventoryVariableProblems(MigInventory(layout));
}

}  // namespace

TEST_CASE("nvidia-mig: the inventory's layout is checked when it loads, at its line") {
  CHECK(InventoryProblems("[3g.40gb, 3g.40gb]").find("nvidia_mig_layout") == std::string::npos);
  CHECK(InventoryProblems("[all-1g.10gb]").find("nvidia_mig_layout") == std::string::npos);
  const std::string three = InventoryProblems("[3g.40gb, 3g.40gb, 3g.40gb]");
  CHECK(three.find("inventory.yaml:") != std::string::npos);
  CHECK(three.find("does not fit one GPU: A100 80GB, H100 80GB holds at most 2 3g.40gb") != std::string::npos);
  CHECK(InventoryProblems("[3g.40g]").find("which is not a MIG profile name") != std::string::npos);
  CHECK(InventoryProblems("[3g.40gb, 3g.20gb]").find("no one MIG GPU clusterctl knows offers together") !=
        std::string::npos);
  CHECK(InventoryProblems("3g.40gb").find("must be a list") != std::string::npos);
}

TEST_CASE("nvidia-mig: a GPU node with a layout plans the layout step around a drain, owing the resume") {
  nlohmann::json facts = {{"os", {{"id", "debian"}, {"family", "debian"}}},
                          {"systemd", true},
                          {"pci", {{"gpu_count", 2}, {"hca_count", 0}, {"nvswitch_count", 0}}}};
  testing::RoleHarness harness(MigInventory("[3g.40gb, 3g.40gb]"), {"nvidia-mig"});
  const testing::Planned planned = harness.Plan("gpu01", std::map<std::string, nlohmann::json>{{"gpu01", facts}});
  REQUIRE(planned.kinds.count("nvidia-mig/layout"));
  CHECK(planned.kinds.at("nvidia-mig/layout") == "nvidia_mig");
  const nlohmann::json& layout = planned.params.at("nvidia-mig/layout");
  CHECK(layout["layout"] == nlohmann::json::array({"3g.40gb", "3g.40gb"}));
  CHECK(layout["before"].dump().find("slurm-maintenance drain") != std::string::npos);
  // Not the health check's prefix: it would resume the node mid-change.
  CHECK(layout["before"].back() == "clusterctl-maintenance: MIG layout change");
  CHECK(layout["after"].dump().find("systemctl restart slurmd.service") != std::string::npos);
  // The resume is owed by a change of the layout, not a step of its own
  // (a step runs only when its own input moves).
  CHECK(std::find(planned.steps.begin(), planned.steps.end(), "nvidia-mig/resume") == planned.steps.end());
  REQUIRE(std::find(planned.handlers.begin(), planned.handlers.end(), "nvidia-mig/resume") != planned.handlers.end());
  CHECK(planned.notify.at("nvidia-mig/layout") == std::vector<std::string>{"resume"});
  CHECK(planned.params.at("nvidia-mig/resume")["argv"][1] == "resume");
  CHECK(planned.params.at("nvidia-mig/resume")["argv"][3] == "clusterctl-maintenance: MIG layout change");
}

TEST_CASE("nvidia-mig, nvidia-driver: a maintenance reason the health check would take for its own is refused") {
  std::string text = MigInventory("[3g.40gb, 3g.40gb]");
  text.insert(text.find("vars:\n") + 6,
              "  nvidia_mig_reason: \"clusterctl: MIG\"\n  nvidia_maintenance_reason: \"clusterctl: driver\"\n");
  const std::string problems = testing::InventoryVariableProblems(text);
  CHECK(problems.find("nvidia_mig_reason") != std::string::npos);
  CHECK(problems.find("nvidia_maintenance_reason") != std::string::npos);
  CHECK(problems.find("the health check's own drains") != std::string::npos);
}

TEST_CASE("nvidia-mig: where Slurm has no NVML the step writes the MIG devices' gres file the node's gres.conf includes") {
  nlohmann::json facts = {{"os", {{"id", "debian"}, {"family", "debian"}}},
                          {"systemd", true},
                          {"cpu", {{"cpus", 8}, {"sockets", 1}, {"cores_per_socket", 4}, {"threads_per_core", 2}}},
                          {"memory", {{"total_mib", 65536}}},
                          {"pci", {{"gpu_count", 2}, {"hca_count", 0}, {"nvswitch_count", 0}}}};
  nlohmann::json head_facts = facts;
  head_facts["pci"]["gpu_count"] = 0;
  const std::map<std::string, nlohmann::json> all = {{"gpu01", facts}, {"head", head_facts}};
  testing::RoleHarness harness(MigInventory("[3g.40gb, 3g.40gb]"), {"nvidia-mig", "slurm-common"});
  const testing::Planned planned = harness.Plan("gpu01", all);
  const nlohmann::json& layout = planned.params.at("nvidia-mig/layout");
  CHECK(layout["gres_file"] == "/etc/slurm/gres-mig.conf");
  CHECK(layout["node_name"] == "gpu01");
  REQUIRE(planned.kinds.count("slurm-common/MIG GRES file"));
  CHECK(planned.params.at("slurm-common/MIG GRES file")["unless"] ==
        nlohmann::json::array({"test", "-e", "/etc/slurm/gres-mig.conf"}));
  // The controller (no layout) gets neither.
  const testing::Planned head = harness.Plan("head", all);
  CHECK(head.kinds.count("slurm-common/MIG GRES file") == 0);
}

}  // namespace clusterctl
