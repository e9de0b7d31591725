// The built-in Slurm roles as a GPU site runs them (issue 35): jobs-only SSH
// (slurm-ssh: who pam_access lets in without a job, the sshd PAM edits),
// the limits slurmd and its jobs get, /dev/shm from the inventory and the
// GPU epilog (slurm-node, slurm.conf), planned for fake facts.
#include <doctest/doctest.h>

#include <sstream>

#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string SiteInventory(const std::string& user, const std::string& vars) {
  return "cluster: lab\nconnection: {user: " + user + "}\nvars:\n  chrony_no_clock_control: false\n" + vars + R"(
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01]}
)";
}

nlohmann::json Facts() {
  return {{"os", {{"id", "debian"}, {"family", "debian"}}},
          {"systemd", true},
          {"cpu", {{"cpus", 8}, {"sockets", 1}, {"cores_per_socket", 4}, {"threads_per_core", 2}}},
          {"memory", {{"total_mib", 65536}}},
          {"pci", {{"gpu_count", 2}, {"hca_count", 0}}}};
}

Planned PlanGpu01(const std::string& user, const std::string& vars) {
  testing::RoleHarness harness(SiteInventory(user, vars), {"slurm-common", "slurm-node", "slurm-ssh"});
  return harness.Plan("gpu01", std::map<std::string, nlohmann::json>{{"head", Facts()}, {"gpu01", Facts()}});
}

std::vector<std::string> AccessRules(const std::string& access_file) {
  std::vector<std::string> rules;
  std::istringstream lines(access_file);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != '#') rules.push_back(line);
  }
  return rules;
}

}  // namespace

TEST_CASE("slurm-ssh: root, the connection user and the inventory's admins pass pam_access; everyone else needs a job") {
  const Planned planned = PlanGpu01("deploy", R"(  admin_users: [{name: alice, groups: [hpcadmin]}]
  admin_groups: [{name: hpcadmin}]
  slurm_ssh_allow_users: [bob]
  slurm_ssh_allow_groups: [ops]
)");
  const std::vector<std::string> expected = {"+:root deploy:ALL", "+:alice:ALL", "+:bob:ALL",
                                             "+:(hpcadmin):ALL", "+:(ops):ALL", "-:ALL:ALL"};
  CHECK(AccessRules(planned.files.at("/etc/security/clusterctl-ssh-access.conf")) == expected);
  const nlohmann::json& account = planned.params.at("slurm-ssh/jobs-only account check");
  CHECK(account["state"] == "present");
  const std::string block = account["block"].get<std::string>();
  // pam_access first and sufficient: an admin passes without pam_slurm_adopt.
  CHECK(block.find("account sufficient pam_access.so accessfile=/etc/security/clusterctl-ssh-access.conf nodefgroup") == 0);
  CHECK(block.find("account required pam_slurm_adopt.so action_no_jobs=deny") != std::string::npos);
  CHECK(block.find("action_adopt_failure=deny") != std::string::npos);
  CHECK(block.find("action_generic_failure=deny") != std::string::npos);
  CHECK(planned.params.at("slurm-ssh/session without pam_systemd")["line"] == "@include common-session-noninteractive");
  // The file pam_access reads is written before the PAM line that names it.
  const auto at = [&](const std::string& step) { return std::find(planned.steps.begin(), planned.steps.end(), step); };
  CHECK(at("slurm-ssh/access list") < at("slurm-ssh/jobs-only account check"));
}

TEST_CASE("slurm-ssh: slurm_ssh_jobs_only false takes the PAM edits back out") {
  const Planned planned = PlanGpu01("root", "  slurm_ssh_jobs_only: false\n");
  CHECK(planned.params.at("slurm-ssh/jobs-only account check")["state"] == "absent");
  CHECK(planned.params.at("slurm-ssh/session without pam_systemd")["line"] == "@include common-session");
  CHECK(AccessRules(planned.files.at("/etc/security/clusterctl-ssh-access.conf")).front() == "+:root root:ALL");
}

TEST_CASE("slurm-ssh: a name that would split an access.conf rule is refused before anything runs") {
  for (const char* bad : {"slurm_ssh_allow_users: ['x:ALL']", "slurm_ssh_allow_groups: ['ops ALL']",
                          "admin_users: [{name: 'a:ALL'}]"}) {
    CAPTURE(bad);
    const std::string problems =
        testing::InventoryVariableProblems(SiteInventory("root", std::string("  ") + bad + "\n"));
    CHECK(problems.find("is not a user or group name") != std::string::npos);
  }
}

TEST_CASE("slurm-node: jobs take memlock and nofile from slurmd; the epilog is in place before slurmd starts") {
  const Planned planned = PlanGpu01("root", "  slurm_node_nofile: 65536\n");
  const std::string& conf = planned.files.at("/etc/slurm/slurm.conf");
  CHECK(conf.find("\nPrologFlags=Contain\n") != std::string::npos);
  CHECK(conf.find("\nPropagateResourceLimitsExcept=MEMLOCK,NOFILE\n") != std::string::npos);
  CHECK(conf.find("\nEpilog=/usr/local/lib/clusterctl/slurm-epilog\n") != std::string::npos);
  const std::string& limits = planned.files.at("/etc/systemd/system/slurmd.service.d/clusterctl-limits.conf");
  CHECK(limits.find("LimitMEMLOCK=infinity\n") != std::string::npos);
  CHECK(limits.find("LimitNOFILE=65536\n") != std::string::npos);
  CHECK(planned.notify.at("slurm-node/limits") == std::vector<std::string>{"restart slurmd"});
  CHECK(planned.params.at("slurm-node/restart slurmd")["daemon_reload"] == true);
  const std::string& epilog = planned.files.at("/usr/local/lib/clusterctl/slurm-epilog");
  CHECK(epilog.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(planned.params.at("slurm-node/epilog")["mode"] == "0755");
  const auto at = [&](const std::string& step) { return std::find(planned.steps.begin(), planned.steps.end(), step); };
  CHECK(at("slurm-node/epilog") < at("slurm-node/package"));
  CHECK(at("slurm-node/limits") < at("slurm-node/package"));
  // /dev/shm is left as it is unless the inventory sizes it.
  CHECK(at("slurm-node/shm size") == planned.steps.end());
}

// Issue 47 (2, 10): users made their own enroot and OCI runtime
// directories under world-writable parents, so one could make another's
// first. Root makes them now, at the job's start.
TEST_CASE("slurm-node: the prolog makes the job user's own directories the roles list, as root, before slurmd starts") {
  const Planned planned = PlanGpu01("root", "");
  const std::string& conf = planned.files.at("/etc/slurm/slurm.conf");
  CHECK(conf.find("\nPrologFlags=Contain\n") != std::string::npos);  // the prolog runs at the allocation, before any step
  CHECK(conf.find("\nProlog=/usr/local/lib/clusterctl/slurm-prolog\n") != std::string::npos);
  const std::string& prolog = planned.files.at("/usr/local/lib/clusterctl/slurm-prolog");
  CHECK(prolog.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(planned.params.at("slurm-node/prolog")["mode"] == "0755");
  CHECK(prolog.find("\nfor list in /etc/clusterctl/user-dirs.d/*.conf; do\n") != std::string::npos);
  CHECK(prolog.find("uid=${SLURM_JOB_UID:-}") != std::string::npos);
  CHECK(prolog.find("'' | *[!0-9]*) echo") != std::string::npos);  // a UID is digits, or nothing is made
  // Anything not the user's own directory is replaced; a new one is 0700 and the user's.
  CHECK(prolog.find("[ -L \"$dir\" ] || { [ -e \"$dir\" ] && [ \"$(stat -c '%u %F' \"$dir\")\" != \"$uid directory\" ]; }") !=
        std::string::npos);
  CHECK(prolog.find("rm -rf --one-file-system -- \"$dir\"") != std::string::npos);
  CHECK(prolog.find("mkdir -m 0700 -- \"$dir\"\n      chown -- \"$uid\" \"$dir\"\n") != std::string::npos);
  CHECK(planned.params.at("slurm-node/user directories list")["path"] == "/etc/clusterctl/user-dirs.d");
  const auto at = [&](const std::string& step) { return std::find(planned.steps.begin(), planned.steps.end(), step); };
  CHECK(at("slurm-node/prolog") < at("slurm-node/package"));
  CHECK(at("slurm-node/user directories list") < at("slurm-node/package"));
}

TEST_CASE("slurm-node: slurm_node_shm_size goes into fstab and is remounted only when the live size differs") {
  const Planned planned = PlanGpu01("root", "  slurm_node_shm_size: 64G\n  slurm_propagate_limits_except: ''\n"
                                            "  slurm_epilog_gpu_cleanup: false\n");
  CHECK(planned.params.at("slurm-node/shm fstab entry")["options"] == "rw,nosuid,nodev,size=64G");
  const nlohmann::json& remount = planned.params.at("slurm-node/shm size");
  CHECK(remount["argv"] == nlohmann::json({"mount", "-o", "remount,size=64G", "/dev/shm"}));
  CHECK(remount["unless"].back() == "64G");  // a positional argument, never inside the script
  const std::string& conf = planned.files.at("/etc/slurm/slurm.conf");
  CHECK(conf.find("PropagateResourceLimitsExcept") == std::string::npos);
  CHECK(conf.find("Epilog=") == std::string::npos);
}

}  // namespace clusterctl
