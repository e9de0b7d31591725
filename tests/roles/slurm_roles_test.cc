// The built-in Slurm roles (roles/slurm-*.yaml, templates/slurm.conf.mustache)
// planned for fake facts, with and without a backup controller: slurm.conf
// lists the primary first, slurmctld runs on both, accounting and the node
// removal steps stay on the primary, and the shared state's owner is checked
// only where there is a backup.
#include <doctest/doctest.h>

#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string SlurmInventory(bool backup, const std::string& vars = "") {
  return R"(cluster: lab
connection: {user: root}
vars: {)" + vars + R"(}
hosts:
  head01: {address: 10.0.0.1}
  head02: {address: 10.0.0.2}
  gpu01: {address: 10.0.0.11}
groups:
  controller: {hosts: [head01]}
)" + (backup ? "  controller_backup: {hosts: [head02]}\n" : "") +
         "  compute: {hosts: [gpu01]}\n";
}

nlohmann::json Facts() {
  return {{"os", {{"id", "debian"}, {"family", "debian"}}},
          {"systemd", true},
          {"cpu", {{"count", 8}, {"sockets", 1}, {"cores_per_socket", 8}, {"threads_per_core", 1}}},
          {"memory", {{"total_mib", 32768}}},
          {"pci", {{"gpu_count", 0}, {"hca_count", 0}}}};
}

class SlurmRoles : public testing::RoleHarness {
 public:
  explicit SlurmRoles(bool backup, const std::string& vars = "")
      : testing::RoleHarness(SlurmInventory(backup, vars),
                             {"munge", "slurm-common", "slurm-accounting", "slurm-controller", "slurm-accounts", "slurm-node"}) {
    UseSecrets();
  }
  Planned PlanAll(const std::string& host) {
    return Plan(host, std::map<std::string, nlohmann::json>{{"head01", Facts()}, {"head02", Facts()}, {"gpu01", Facts()}});
  }
};

// slurm.conf's lines that start with `key=`, in order.
std::vector<std::string> Lines(const std::string& conf, const std::string& key) {
  std::vector<std::string> found;
  size_t start = 0;
  while (start < conf.size()) {
    size_t end = conf.find('\n', start);
    if (end == std::string::npos) end = conf.size();
    std::string line = conf.substr(start, end - start);
    if (line.rfind(key + "=", 0) == 0) found.push_back(line);
    start = end + 1;
  }
  return found;
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST_CASE("slurm.conf with a backup controller: the primary first, the same bytes everywhere") {
  SlurmRoles h(true);
  Planned head = h.PlanAll("head01");
  const std::string conf = head.files.at("/etc/slurm/slurm.conf");
  CHECK(Lines(conf, "SlurmctldHost") == std::vector<std::string>{"SlurmctldHost=head01", "SlurmctldHost=head02"});
  CHECK(Lines(conf, "SlurmctldTimeout") == std::vector<std::string>{"SlurmctldTimeout=60"});
  CHECK(Lines(conf, "SlurmdTimeout") == std::vector<std::string>{"SlurmdTimeout=300"});
  CHECK(Lines(conf, "AccountingStorageHost") == std::vector<std::string>{"AccountingStorageHost=head01"});
  CHECK(h.PlanAll("head02").files.at("/etc/slurm/slurm.conf") == conf);
  CHECK(h.PlanAll("gpu01").files.at("/etc/slurm/slurm.conf") == conf);
}

TEST_CASE("slurm.conf without a backup names one controller; the timeouts come from the inventory") {
  SlurmRoles h(false, "slurm_controller_timeout: 15, slurm_node_timeout: 20");
  const std::string conf = h.PlanAll("head01").files.at("/etc/slurm/slurm.conf");
  CHECK(Lines(conf, "SlurmctldHost") == std::vector<std::string>{"SlurmctldHost=head01"});
  CHECK(Lines(conf, "SlurmctldTimeout") == std::vector<std::string>{"SlurmctldTimeout=15"});
  CHECK(Lines(conf, "SlurmdTimeout") == std::vector<std::string>{"SlurmdTimeout=20"});
  CHECK(conf.find("backup") == std::string::npos);
}

TEST_CASE("the backup runs munge and slurmctld; accounting and node removal stay on the primary") {
  SlurmRoles h(true);
  Planned backup = h.PlanAll("head02");
  CHECK(backup.roles == std::vector<std::string>{"munge", "slurm-common", "slurm-controller"});
  CHECK(Has(backup.steps, "slurm-controller/service"));
  CHECK(Has(backup.handlers, "slurm-controller/restart slurmctld"));
  CHECK_FALSE(Has(backup.steps, "slurm-common/node removal script"));
  // After a restart the primary saves the partitions the backup would restore.
  CHECK_FALSE(Has(backup.handlers, "slurm-controller/save state for the backup"));
  Planned primary = h.PlanAll("head01");
  CHECK(Has(primary.roles, "slurm-accounting"));
  CHECK(Has(primary.steps, "slurm-accounting/service"));
  CHECK(Has(primary.steps, "slurm-common/node removal script"));
  CHECK(Has(primary.handlers, "slurm-controller/save state for the backup"));
  CHECK(primary.notify.at("slurm-common/slurm.conf") ==
        std::vector<std::string>{"slurm-controller/restart slurmctld", "slurm-controller/save state for the backup",
                                 "slurm-node/restart slurmd"});
  // Both check that the shared state belongs to their slurm before taking it.
  for (const Planned* p : {&primary, &backup}) {
    CHECK(Has(p->steps, "slurm-controller/state save location owner"));
    CHECK(p->params.at("slurm-controller/state save location owner")["argv"].back() == "/var/lib/slurm/slurmctld");
  }
}

TEST_CASE("without a backup the state directory's owner is not asserted (the directory step sets it)") {
  SlurmRoles h(false);
  Planned primary = h.PlanAll("head01");
  CHECK_FALSE(Has(primary.steps, "slurm-controller/state save location owner"));
  CHECK_FALSE(Has(primary.handlers, "slurm-controller/save state for the backup"));
  CHECK(Has(primary.steps, "slurm-controller/state save location"));
}

TEST_CASE("accounting objects: the inventory's QoS, accounts and users reach the primary's step; enforced in slurm.conf") {
  const std::string vars =
      R"(slurm_qos: [{name: short, max_wall: "00:10:00", flags: [DenyOnLimit]}],
         slurm_accounts: [{name: physics, qos: [short]}], slurm_users: [{name: alice, account: physics}])";
  SlurmRoles h(true, vars);
  Planned primary = h.PlanAll("head01");
  const nlohmann::json& params = primary.params.at("slurm-accounts/accounting objects");
  CHECK(params["cluster"] == "lab");
  CHECK(params["qos"][0]["max_wall"] == "00:10:00");
  CHECK(params["users"][0]["account"] == "physics");
  CHECK(params["prune"] == false);
  CHECK(Lines(primary.files.at("/etc/slurm/slurm.conf"), "AccountingStorageEnforce") ==
        std::vector<std::string>{"AccountingStorageEnforce=associations,limits,qos"});
  // GPU TRES recorded and enforced (issue 50): gres/gpu even before a node has GPUs.
  CHECK(Lines(primary.files.at("/etc/slurm/slurm.conf"), "AccountingStorageTRES") ==
        std::vector<std::string>{"AccountingStorageTRES=gres/gpu"});
  // Usage recorded per association and QoS: GrpTRESMins budgets are spent.
  CHECK(Lines(primary.files.at("/etc/slurm/slurm.conf"), "PriorityType") ==
        std::vector<std::string>{"PriorityType=priority/multifactor"});
  CHECK(Lines(SlurmRoles(false, "slurm_priority_type: priority/basic").PlanAll("head01").files.at("/etc/slurm/slurm.conf"),
              "PriorityType") == std::vector<std::string>{"PriorityType=priority/basic"});
  CHECK_FALSE(Has(h.PlanAll("head02").steps, "slurm-accounts/accounting objects"));
  // Made once slurmctld runs: a limit on gres/gpu needs the TRES it registers.
  const std::vector<std::string>& steps = primary.steps;
  auto at = [&](const std::string& s) { return std::find(steps.begin(), steps.end(), s) - steps.begin(); };
  CHECK(at("slurm-controller/service") < at("slurm-accounts/gpu tres registered"));
  CHECK(at("slurm-accounts/gpu tres registered") < at("slurm-accounts/accounting objects"));
  CHECK(primary.params.at("slurm-accounts/gpu tres registered")["argv"].back() == "gres/gpu");

  // What the values' syntax cannot see (an account no one names) stops the plan.
  SlurmRoles unknown(false, R"(slurm_users: [{name: bob, account: chem}])");
  const std::string errors = unknown.PlanErrors("head01", Facts());
  CHECK(errors.find("slurm-accounts.yaml") != std::string::npos);
  CHECK(errors.find("users[0] (bob): account 'chem' is neither root nor in accounts") != std::string::npos);
}

TEST_CASE("without accounting, or with slurm_accounting_enforce empty, slurm.conf enforces nothing") {
  SlurmRoles off(false, "slurm_accounting: false");
  CHECK(Lines(off.PlanAll("head01").files.at("/etc/slurm/slurm.conf"), "AccountingStorageEnforce").empty());
  CHECK(Lines(off.PlanAll("head01").files.at("/etc/slurm/slurm.conf"), "AccountingStorageTRES").empty());
  CHECK(Lines(off.PlanAll("head01").files.at("/etc/slurm/slurm.conf"), "PriorityType").empty());
  SlurmRoles unenforced(false, R"(slurm_accounting_enforce: "")");
  const std::string conf = unenforced.PlanAll("head01").files.at("/etc/slurm/slurm.conf");
  CHECK(Lines(conf, "AccountingStorageEnforce").empty());
  CHECK(Lines(conf, "AccountingStorageType") == std::vector<std::string>{"AccountingStorageType=accounting_storage/slurmdbd"});
}

}  // namespace clusterctl
